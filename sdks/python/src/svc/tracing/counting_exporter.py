"""An exporter wrapper that never raises, sends each batch in requests of bounded size (halving a part the server
refuses with 413), counts the spans it could not deliver, and logs the first failure once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from .sized_export import StatusRecordingSession, estimated_bytes, parts_of

logger = logging.getLogger("svc")


class CountingExporter(SpanExporter):
    def __init__(self, inner: SpanExporter, endpoint: str, *, max_batch_bytes: int,
                 session: StatusRecordingSession) -> None:
        self._inner = inner
        self._endpoint = endpoint
        self._max_batch_bytes = max_batch_bytes
        self._session = session
        self._lock = threading.Lock()
        self.exported = 0
        self.dropped = 0
        self._logged = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        delivered = True
        for part in parts_of(spans, self._max_batch_bytes):
            delivered = self._send(part) and delivered
        return SpanExportResult.SUCCESS if delivered else SpanExportResult.FAILURE

    def _send(self, spans: list[ReadableSpan]) -> bool:
        """Sends one part; a part refused with 413 is halved and each half sent, down to single spans."""
        try:
            result = self._inner.export(spans)
        except Exception as err:  # noqa: BLE001 - an exporter bug must not reach the batch thread's caller
            logger.debug("svc: span export raised", exc_info=err)
            result = SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            with self._lock:
                self.exported += len(spans)
            return True
        if self._session.last_status() == 413:
            if len(spans) > 1:
                half = (len(spans) + 1) // 2
                first = self._send(spans[:half])
                return self._send(spans[half:]) and first
            context = spans[0].get_span_context()
            logger.error("svc: span %r (trace %032x, span %016x, about %d bytes) was refused by %s as too large (413) "
                         "and is dropped.", spans[0].name, context.trace_id if context else 0,
                         context.span_id if context else 0, estimated_bytes(spans[0]), self._endpoint)
        with self._lock:
            self.dropped += len(spans)
            first = not self._logged
            self._logged = True
        if first:
            logger.warning("svc: could not export %d spans to %s; they are dropped. Later failures are only counted "
                           "(Svc.dropped_spans).", len(spans), self._endpoint)
        return False

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)
