"""Calls to {host}/api/public over httpx with Basic auth, retries with backoff, and typed errors."""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from .config import Credentials
from .errors import UnreachableError, api_error
from .version import __version__

logger = logging.getLogger("svc")

# 429 means the request was not processed; 5xx may have been (a retry could repeat a create).
_RETRY_ALWAYS = frozenset({429})
_RETRY_IF_IDEMPOTENT = frozenset({500, 502, 503, 504})
_BACKOFF_BASE_S = 0.5
_BACKOFF_MAX_S = 8.0

Params = Mapping[str, str | int | list[str] | None]


def segment(value: str) -> str:
    """One path segment: names with slashes (`folder/name`) are sent encoded, as the API expects."""
    return quote(value, safe="")


def retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` as delay-seconds or an HTTP date."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _retryable_failure(err: httpx.TransportError, idempotent: bool) -> bool:
    if isinstance(err, (httpx.ConnectError, httpx.ConnectTimeout)):
        return True  # nothing was sent
    if isinstance(err, httpx.TimeoutException):
        return False  # a server silent for the whole timeout is stuck: retrying would multiply the caller's wait
    if isinstance(err, (httpx.NetworkError, httpx.RemoteProtocolError)):
        return idempotent  # the server may have acted on it
    return False  # a proxy refusing, a protocol error on our side: retrying would not help


def _issues_of(error: Any) -> str | None:
    """The validation issues of a 400 (`error: [{path, message}]`) as one line."""
    if not isinstance(error, list):
        return None
    parts = [f"{'.'.join(str(p) for p in i.get('path') or [])}: {i.get('message')}" for i in error if isinstance(i, dict)]
    return "; ".join(parts) or None


def _message_of(response: httpx.Response) -> tuple[str, str | None, Any]:
    """The server's message (with validation issues appended), its error name, and the decoded body."""
    try:
        body: Any = response.json()
    except ValueError:
        text = response.text.strip()
        return (text[:500] or response.reason_phrase), None, text
    if not isinstance(body, dict):
        return response.reason_phrase, None, body
    message = str(body["message"]) if body.get("message") is not None else response.reason_phrase
    error = body.get("error")
    issues = _issues_of(error)
    if issues is not None:
        message = f"{message}: {issues}"
    return message, error if isinstance(error, str) else None, body


class RestClient:
    """The public API client: one httpx.Client (thread-safe, pooled) per Svc."""

    def __init__(self, credentials: Credentials, *, timeout_s: float, max_retries: int, max_retry_wait_s: float,
                 transport: httpx.BaseTransport | None = None) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.max_retries = max_retries
        self.max_retry_wait_s = max_retry_wait_s
        self._http = httpx.Client(
            base_url=f"{credentials.host}/api/public",
            auth=httpx.BasicAuth(credentials.public_key, credentials.secret_key),
            timeout=httpx.Timeout(timeout_s),
            headers={"User-Agent": f"svc-sdk-python/{__version__}"},
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, *, params: Params | None = None, json: Any = None,
                idempotent: bool = True) -> Any:
        """The decoded JSON answer (None for an empty body). Retries 429 and connection failures always, 5xx and
        timeouts only when the request is idempotent; raises ApiError subclasses or UnreachableError."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        url = f"{self._http.base_url}{path.lstrip('/')}"
        attempt = 0
        while True:
            may_retry = attempt < self.max_retries
            try:
                response = self._http.request(method, path.lstrip("/"), params=query, json=json)
            except httpx.TransportError as err:
                if not (may_retry and _retryable_failure(err, idempotent)):
                    raise UnreachableError(f"could not reach {url}: {err!r} (check SVC_HOST)", method=method,
                                           url=url) from err
                wait = self._backoff(attempt)
                logger.debug("svc: %s %s failed (%r), retrying in %.2fs", method, url, err, wait)
            else:
                if response.is_success:
                    return self._decoded(response, method, url)
                hint = retry_after_seconds(response.headers.get("retry-after"))
                retryable = response.status_code in _RETRY_ALWAYS or (
                    idempotent and response.status_code in _RETRY_IF_IDEMPOTENT)
                wait = self._backoff(attempt) if hint is None else hint
                if not (may_retry and retryable) or wait > self.max_retry_wait_s:
                    message, error, body = _message_of(response)
                    raise api_error(response.status_code, message, error=error, body=body, method=method, url=url,
                                    retry_after=hint)
                logger.debug("svc: %s %s answered %s, retrying in %.2fs", method, url, response.status_code, wait)
            time.sleep(wait)
            attempt += 1

    @staticmethod
    def _decoded(response: httpx.Response, method: str, url: str) -> Any:
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise api_error(response.status_code, "the answer is not JSON: is SVC_HOST the svc admin listener?",
                            error=None, body=response.text[:500], method=method, url=url) from None

    @staticmethod
    def _backoff(attempt: int) -> float:
        """Exponential backoff with jitter: 0.25-0.5 s, 0.5-1 s, 1-2 s, ... capped at 8 s."""
        cap = min(_BACKOFF_MAX_S, _BACKOFF_BASE_S * 2.0**attempt)
        return cap / 2 + random.uniform(0, cap / 2)
