"""An exporter wrapper that never raises, counts the spans it could not deliver, and logs the first failure once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

logger = logging.getLogger("svc")


class CountingExporter(SpanExporter):
    def __init__(self, inner: SpanExporter, endpoint: str) -> None:
        self._inner = inner
        self._endpoint = endpoint
        self._lock = threading.Lock()
        self.exported = 0
        self.dropped = 0
        self._logged = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self._inner.export(spans)
        except Exception as err:  # noqa: BLE001 - an exporter bug must not reach the batch thread's caller
            logger.debug("svc: span export raised", exc_info=err)
            result = SpanExportResult.FAILURE
        with self._lock:
            if result is SpanExportResult.SUCCESS:
                self.exported += len(spans)
                return result
            self.dropped += len(spans)
            first = not self._logged
            self._logged = True
        if first:
            logger.warning("svc: could not export %d spans to %s; they are dropped. Later failures are only counted "
                           "(Svc.dropped_spans).", len(spans), self._endpoint)
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)
