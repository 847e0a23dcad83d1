"""Fixtures of the SDK suite: a fresh `Svc` per test against the session's real service (the `svc_service` plugin in
test/python), a plain httpx reader of the public API to check what was stored, and unique names."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import svc
from sdk_testing import Trace, wait_for


@pytest.fixture
def client(svc_service: Any) -> Iterator[svc.Svc]:
    """A client of the session's service, also the default client (for `@observe`)."""
    c = svc.Svc(svc_service.public_key, svc_service.secret_key, svc_service.admin_url, span_export_interval_s=0.2)
    svc.set_client(c)
    yield c
    svc.set_client(None)
    c.shutdown()


@pytest.fixture
def api(svc_service: Any) -> Iterator[httpx.Client]:
    """The public API read directly, not through the SDK: what the service stored."""
    with httpx.Client(base_url=f"{svc_service.admin_url}/api/public",
                      auth=(svc_service.public_key, svc_service.secret_key), timeout=10) as http:
        yield http


@pytest.fixture
def unique() -> Callable[[str], str]:
    run = uuid.uuid4().hex[:8]
    return lambda name: f"{name}-{run}"


@pytest.fixture
def read_trace(api: httpx.Client) -> Callable[..., Trace]:
    """GET /api/public/traces/{id} once it exists and `until(trace)` holds (default: it has `observations` spans)."""

    def read(trace_id: str, until: Callable[[Trace], bool] | None = None, observations: int = 0) -> Trace:
        def fetch() -> Trace | None:
            response = api.get(f"/traces/{trace_id}")
            return response.json() if response.status_code == 200 else None

        def ready(trace: Trace | None) -> bool:
            return trace is not None and len(trace["observations"]) >= observations and (until is None or until(trace))

        found: Trace = wait_for(fetch, ready)
        return found

    return read


@pytest.fixture
def dead_url() -> str:
    """A local URL where nothing listens (a port bound and released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
