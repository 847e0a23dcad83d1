"""The errors the SDK raises. Every one is a `SvcError`; API answers carry the HTTP status and the server's message."""

from __future__ import annotations

from typing import Any


class SvcError(Exception):
    """Base class of every error this SDK raises."""


class ConfigError(SvcError, ValueError):
    """A setting is missing or malformed. `variable` names the environment variable (or constructor argument)."""

    def __init__(self, variable: str, message: str) -> None:
        super().__init__(message)
        self.variable = variable


class UnreachableError(SvcError):
    """The service could not be reached (connection refused, DNS, timeout), after the retries."""

    def __init__(self, message: str, *, method: str, url: str) -> None:
        super().__init__(message)
        self.method = method
        self.url = url


class ApiError(SvcError):
    """The service answered with an error status.

    `status` is the HTTP status, `message` the server's `message` field (or the body text), `error` the server's
    error name (`InvalidRequestError`, `NotFoundError`, ...) when it sent one, and `body` the decoded body.
    """

    def __init__(self, status: int, message: str, *, error: str | None, body: Any, method: str, url: str) -> None:
        super().__init__(f"{status} {message} ({method} {url})")
        self.status = status
        self.message = message
        self.error = error
        self.body = body
        self.method = method
        self.url = url


class AuthenticationError(ApiError):
    """401: the key pair is wrong, expired, or of the wrong kind (check SVC_PUBLIC_KEY, SVC_SECRET_KEY, SVC_HOST)."""


class ForbiddenError(ApiError):
    """403: the key is valid but not allowed this operation (an ingestion-only project, an organization key)."""


class NotFoundError(ApiError):
    """404: the prompt, dataset, item, run, score or route does not exist."""


class RateLimitError(ApiError):
    """429 after the retries; `retry_after` is the server's hint in seconds, when it gave one."""

    def __init__(self, status: int, message: str, *, error: str | None, body: Any, method: str, url: str,
                 retry_after: float | None) -> None:
        super().__init__(status, message, error=error, body=body, method=method, url=url)
        self.retry_after = retry_after


class ServerError(ApiError):
    """5xx after the retries."""


def api_error(status: int, message: str, *, error: str | None, body: Any, method: str, url: str,
              retry_after: float | None = None) -> ApiError:
    """The most specific ApiError class for a status."""
    if status == 429:
        return RateLimitError(status, message, error=error, body=body, method=method, url=url, retry_after=retry_after)
    kind: type[ApiError] = {401: AuthenticationError, 403: ForbiddenError, 404: NotFoundError}.get(status, ApiError)
    if status >= 500:
        kind = ServerError
    return kind(status, message, error=error, body=body, method=method, url=url)
