package dev.svc.sdk;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;

/**
 * Reads how many spans the batch processor dropped (its queue was full, or it was shut down), from the processor's
 * own {@code otel.sdk.processor.span.processed} counter (points with an {@code error.type}), through a private meter
 * provider that exports nowhere.
 */
final class QueueDropReader implements MetricReader {
    private static final String PROCESSED = "otel.sdk.processor.span.processed";
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private volatile CollectionRegistration registration = CollectionRegistration.noop();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(this).build();

    SdkMeterProvider meterProvider() {
        return meterProvider;
    }

    long processorDrops() {
        long dropped = 0;
        for (MetricData metric : registration.collectAllMetrics()) {
            if (!metric.getName().equals(PROCESSED)) continue;
            for (LongPointData point : metric.getLongSumData().getPoints()) {
                if (point.getAttributes().get(ERROR_TYPE) != null) dropped += point.getValue();
            }
        }
        return dropped;
    }

    @Override
    public void register(CollectionRegistration registration) {
        this.registration = registration;
    }

    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
        return AggregationTemporality.CUMULATIVE;
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
