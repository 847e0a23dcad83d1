"""Settings from constructor arguments, else the environment, checked once at construction."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import ConfigError

PUBLIC_KEY_ENV = "SVC_PUBLIC_KEY"
SECRET_KEY_ENV = "SVC_SECRET_KEY"
HOST_ENV = "SVC_HOST"
GATEWAY_URL_ENV = "SVC_GATEWAY_URL"
GATEWAY_KEY_ENV = "SVC_GATEWAY_KEY"
TIMEOUT_ENV = "SVC_TIMEOUT"
DEFAULT_TIMEOUT_S = 5.0

_KEY_CHARS = re.compile(r"^[\x21-\x7e]+$")


@dataclass(frozen=True)
class Credentials:
    public_key: str
    secret_key: str
    host: str
    """The admin listener's base URL, without a trailing slash."""

    def __repr__(self) -> str:
        # Never print the secret (logs, tracebacks).
        return f"Credentials(public_key={self.public_key!r}, secret_key='***', host={self.host!r})"


def setting(value: str | None, variable: str, argument: str) -> str:
    """The argument, else the environment variable; a clear error naming both when neither is set."""
    chosen = value if value is not None else os.environ.get(variable)
    if chosen is None or chosen.strip() == "":
        raise ConfigError(variable, f"{variable} is not set: set the {variable} environment variable or pass {argument}=")
    return chosen.strip()


def _key(value: str | None, variable: str, argument: str, prefix: str, other_prefix: str) -> str:
    key = setting(value, variable, argument)
    if not _KEY_CHARS.match(key):
        raise ConfigError(variable, f"{variable} is malformed: a key has no spaces or control characters")
    if key.startswith(other_prefix) and not key.startswith(prefix):
        raise ConfigError(variable, f"{variable} looks like the other key of the pair (it starts with {other_prefix!r}); "
                                    f"{variable} takes the key starting with {prefix!r}")
    return key


def base_url(value: str | None, variable: str, argument: str, *, strip_suffix: str | None = None) -> str:
    """An http(s) base URL without query, fragment or trailing slash; `strip_suffix` (like `/v1`) is accepted and dropped."""
    url = setting(value, variable, argument).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(variable, f"{variable} must be an http:// or https:// URL, got {url!r}")
    if parts.query or parts.fragment:
        raise ConfigError(variable, f"{variable} must be a base URL without query or fragment, got {url!r}")
    if strip_suffix is not None and url.endswith(strip_suffix):
        url = url[: -len(strip_suffix)]
    return url


def credentials(public_key: str | None, secret_key: str | None, host: str | None) -> Credentials:
    public = _key(public_key, PUBLIC_KEY_ENV, "public_key", "pk-", "sk-")
    secret = _key(secret_key, SECRET_KEY_ENV, "secret_key", "sk-", "pk-")
    url = base_url(host, HOST_ENV, "host")
    if urlsplit(url).path.rstrip("/").endswith("/api/public"):
        raise ConfigError(HOST_ENV, f"{HOST_ENV} is the admin listener's base URL (like http://localhost:8081), "
                                    f"without /api/public; got {url!r}")
    return Credentials(public_key=public, secret_key=secret, host=url)


def timeout_seconds(value: float | None) -> float:
    """The REST timeout: the argument, else `SVC_TIMEOUT` (seconds), else 5 s; positive."""
    if value is not None:
        if not value > 0:
            raise ValueError("timeout_s must be positive")
        return value
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if raw == "":
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ConfigError(TIMEOUT_ENV, f"{TIMEOUT_ENV} must be a positive number of seconds, got {raw!r}")
    return seconds
