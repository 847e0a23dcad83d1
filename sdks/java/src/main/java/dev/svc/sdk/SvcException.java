package dev.svc.sdk;

/** Base of every error this SDK throws. Unchecked, like the errors of java.net.http's callers usually are. */
public class SvcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SvcException(String message) {
        super(message);
    }

    public SvcException(String message, Throwable cause) {
        super(message, cause);
    }
}
