package dev.svc.sdk;

/**
 * The service answered with an error status (after the retries, for 429 and 5xx). Carries the status, the server's
 * {@code message} and its {@code error} name ({@code NotFoundError}, {@code UnauthorizedError}, ...).
 */
public final class SvcApiException extends SvcException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String serverMessage;
    private final String errorName;
    private final String method;
    private final String path;

    public SvcApiException(String method, String path, int status, String serverMessage, String errorName) {
        super(method + " " + path + " answered " + status + (errorName == null ? "" : " " + errorName) + ": " + serverMessage);
        this.status = status;
        this.serverMessage = serverMessage;
        this.errorName = errorName;
        this.method = method;
        this.path = path;
    }

    /** The HTTP status, e.g. 401, 404, 429. */
    public int status() {
        return status;
    }

    /** The server's {@code message} field, or the body text when the answer had none. */
    public String serverMessage() {
        return serverMessage;
    }

    /** The server's {@code error} field (an error name, or the list of invalid fields as JSON text); null when absent. */
    public String errorName() {
        return errorName;
    }

    public String method() {
        return method;
    }

    /** The request path, e.g. {@code /api/public/v2/prompts/welcome}. */
    public String path() {
        return path;
    }
}
