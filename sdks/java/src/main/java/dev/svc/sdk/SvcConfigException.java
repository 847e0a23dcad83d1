package dev.svc.sdk;

/** A setting is missing or malformed; the message names the environment variable or builder method to fix. */
public final class SvcConfigException extends SvcException {
    private static final long serialVersionUID = 1L;

    public SvcConfigException(String message) {
        super(message);
    }
}
