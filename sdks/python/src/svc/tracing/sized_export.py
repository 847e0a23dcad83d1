"""Export requests of bounded size: a batch is cut into parts of at most `max_bytes` (estimated before encoding and
compression), and the HTTP status of each export is kept so that a part refused with 413 can be halved."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import requests
from opentelemetry.sdk.trace import ReadableSpan


def _attribute_bytes(attributes: Mapping[str, Any] | None) -> int:
    total = 0
    for key, value in (attributes or {}).items():
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        total += 8 + len(key.encode()) + len(text.encode())
    return total


def estimated_bytes(span: ReadableSpan) -> int:
    """What one span adds to an OTLP request, roughly: its texts plus a fixed share for ids, times and framing."""
    return (120 + len(span.name.encode()) + _attribute_bytes(span.attributes)
            + sum(_attribute_bytes(e.attributes) for e in span.events)
            + sum(_attribute_bytes(link.attributes) for link in span.links))


def parts_of(spans: Sequence[ReadableSpan], max_bytes: int) -> list[list[ReadableSpan]]:
    """The spans in order, cut into parts of at most `max_bytes`; a span larger than that is a part of its own."""
    parts: list[list[ReadableSpan]] = []
    current: list[ReadableSpan] = []
    size = 0
    for span in spans:
        span_bytes = estimated_bytes(span)
        if current and size + span_bytes > max_bytes:
            parts.append(current)
            current, size = [], 0
        current.append(span)
        size += span_bytes
    if current:
        parts.append(current)
    return parts


class StatusRecordingSession(requests.Session):
    """The exporter's HTTP session, keeping the status of the last answer on each thread (the exporter reports only
    success or failure)."""

    def __init__(self) -> None:
        super().__init__()
        self._last = threading.local()

    def request(self, *args: Any, **kwargs: Any) -> Any:
        self._last.status = None
        response = super().request(*args, **kwargs)
        self._last.status = response.status_code
        return response

    def last_status(self) -> int | None:
        """The status of this thread's last answer (None when no answer came)."""
        status: int | None = getattr(self._last, "status", None)
        return status
