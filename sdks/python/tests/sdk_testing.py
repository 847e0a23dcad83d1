"""Helpers shared by the SDK tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Trace = dict[str, Any]


def wait_for(fetch: Callable[[], Any], until: Callable[[Any], bool], *, timeout_s: float = 15.0) -> Any:
    """Polls `fetch` until `until(value)`: the service writes some traces in batches after answering."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = fetch()
        if until(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout_s}s; last value: {value!r}")
        time.sleep(0.1)


def by_name(trace: Trace) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in trace["observations"]}
