package dev.svc.sdk;

/** The service could not be reached, or did not answer within the timeout, after the retries. */
public final class SvcConnectionException extends SvcException {
    private static final long serialVersionUID = 1L;

    public SvcConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
