"""The module-level default client, used by `@observe` and `svc.get_client()`."""

from __future__ import annotations

import threading

from .client import Svc

_lock = threading.Lock()
_client: Svc | None = None


def get_client() -> Svc:
    """The default client: the one given to `set_client`, else one made from the environment at the first call
    (`SVC_PUBLIC_KEY`, `SVC_SECRET_KEY`, `SVC_HOST`; a `ConfigError` names what is missing)."""
    global _client
    with _lock:
        if _client is None:
            _client = Svc()
        return _client


def set_client(client: Svc | None) -> None:
    """Makes `client` the default (None: the next `get_client()` makes one from the environment again). The previous
    default is not shut down."""
    global _client
    with _lock:
        _client = client
