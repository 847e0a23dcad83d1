package dev.svc.sdk;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests the one {@link SvcService} of the run: started by the first test class that asks, stopped when the
 * whole run ends (the root context's store closes it).
 */
final class SvcServiceExtension implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SvcService.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).getOrComputeIfAbsent(SvcService.class, k -> {
            try {
                return SvcService.start();
            } catch (Exception e) {
                throw new IllegalStateException("could not start svc: " + e.getMessage(), e);
            }
        }, SvcService.class);
    }
}
