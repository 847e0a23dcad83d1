"""The gateway link: OpenAI clients pointed at the svc gateway that send, on every request, the current span as W3C
`traceparent` and the current trace's session and user ids as `svc-session-id` / `svc-user-id`. The gateway then
records its trace of the call (id: the `x-svc-request-id` response header) as a child of the agent's span."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from . import config
from .errors import ConfigError
from .tracing import trace_context

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    import openai

_propagator = TraceContextTextMapPropagator()


class _Request(Protocol):
    @property
    def headers(self) -> MutableMapping[str, str]: ...


def _header_safe(value: str) -> bool:
    # HTTP clients encode header values as ASCII; the gateway ignores ids over 200 characters or with controls.
    return value.isascii() and value.isprintable() and len(value) <= 200


def gateway_headers() -> dict[str, str]:
    """The headers that link a call to the current span: `traceparent` (and `tracestate`), `svc-session-id`,
    `svc-user-id`. Empty outside a span. For HTTP clients other than the ones `openai_client` makes."""
    headers: dict[str, str] = {}
    _propagator.inject(headers)
    shared = trace_context.of_current_span()
    if shared is not None:
        if shared.session_id is not None and _header_safe(shared.session_id):
            headers["svc-session-id"] = shared.session_id
        if shared.user_id is not None and _header_safe(shared.user_id):
            headers["svc-user-id"] = shared.user_id
    return headers


def _add_headers(request: _Request) -> None:
    request.headers.update(gateway_headers())


async def _add_headers_async(request: _Request) -> None:
    request.headers.update(gateway_headers())


def _settings(base_url: str | None, api_key: str | None) -> tuple[str, str]:
    url = config.base_url(base_url, config.GATEWAY_URL_ENV, "base_url", strip_suffix="/v1")
    return f"{url}/v1", config.setting(api_key, config.GATEWAY_KEY_ENV, "api_key")


def _openai() -> Any:
    try:
        import openai
    except ImportError as err:
        raise ConfigError("openai", "the gateway link needs the openai package: pip install openai") from err
    return openai


def _linked(make_client: Any, make_http_client: Any, hook: Any, base_url: str | None, api_key: str | None,
            options: dict[str, Any]) -> Any:
    url, key = _settings(base_url, api_key)
    http_client = options.pop("http_client", None)
    if http_client is None:
        http_client = make_http_client(event_hooks={"request": [hook]})
    else:
        http_client.event_hooks["request"].append(hook)
    return make_client(base_url=url, api_key=key, http_client=http_client, **options)


def openai_client(base_url: str | None = None, api_key: str | None = None, **kwargs: Any) -> openai.OpenAI:
    """An `openai.OpenAI` client for the gateway. `base_url` (else `SVC_GATEWAY_URL`) is the gateway's base URL, with
    or without `/v1`; `api_key` (else `SVC_GATEWAY_KEY`) a gateway key. Other arguments go to `openai.OpenAI`; an
    `http_client` given there gets the linking hook added to its request hooks."""
    sdk = _openai()
    client: openai.OpenAI = _linked(sdk.OpenAI, sdk.DefaultHttpxClient, _add_headers, base_url, api_key, kwargs)
    return client


def async_openai_client(base_url: str | None = None, api_key: str | None = None, **kwargs: Any) -> openai.AsyncOpenAI:
    """As `openai_client`, an `openai.AsyncOpenAI`."""
    sdk = _openai()
    client: openai.AsyncOpenAI = _linked(sdk.AsyncOpenAI, sdk.DefaultAsyncHttpxClient, _add_headers_async, base_url,
                                         api_key, kwargs)
    return client
