"""Tracing for one Svc client: starting spans and generations, making them current, updating the current one."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from ..config import Credentials
from ..version import __version__
from . import attributes as attr
from . import trace_context
from .counting_exporter import CountingExporter
from .observation import SvcGeneration, SvcSpan
from .provider import ExportSettings, build_provider

_GENERATION_TYPES = frozenset({"generation", "embedding"})
ObservationT = TypeVar("ObservationT", bound=SvcSpan)


@contextmanager
def activated(observation: SvcSpan) -> Iterator[None]:
    """The observation as the current span (and its trace's attributes as current) inside the block."""
    token = otel_context.attach(trace.set_span_in_context(observation.otel_span))
    state = trace_context.activate(observation.trace_attributes)
    try:
        yield
    finally:
        trace_context.deactivate(state)
        otel_context.detach(token)


@contextmanager
def as_current(observation: ObservationT) -> Iterator[ObservationT]:
    """Current inside the block; an exception leaving the block marks it ERROR and goes on; ended at the end."""
    try:
        with activated(observation):
            yield observation
    except Exception as error:
        observation.record_error(error)
        raise
    finally:
        observation.end()


class Tracing:
    def __init__(self, credentials: Credentials, settings: ExportSettings) -> None:
        self._credentials = credentials
        self._settings = settings
        self._lock = threading.Lock()
        self._provider: TracerProvider | None = None
        self._exporter: CountingExporter | None = None
        self._tracer: trace.Tracer | None = None

    def _get_tracer(self) -> trace.Tracer:
        # Built at the first span, so clients used only for prompts, datasets or scores start no export thread.
        with self._lock:
            if self._tracer is None:
                self._provider, self._exporter = build_provider(self._credentials, self._settings)
                self._tracer = self._provider.get_tracer("svc-sdk", __version__)
            return self._tracer

    def _open(self, name: str, as_type: attr.ObservationType) -> tuple[trace.Span, trace_context.TraceAttributes]:
        """A new span, a child of the current span (any tracer's), not yet current, and its trace's attributes."""
        span = self._get_tracer().start_span(name, attributes={attr.OBSERVATION_TYPE: as_type})
        return span, trace_context.for_new_span(span)

    def start(self, name: str, as_type: attr.ObservationType, *, input: Any = None,
              metadata: Mapping[str, Any] | None = None) -> SvcSpan:
        if as_type in _GENERATION_TYPES:
            return self.start_generation(name, "embedding" if as_type == "embedding" else "generation", input=input,
                                         metadata=metadata)
        return SvcSpan(*self._open(name, as_type)).update(input=input, metadata=metadata)

    def start_generation(self, name: str, as_type: attr.GenerationType, *, input: Any = None,
                         metadata: Mapping[str, Any] | None = None) -> SvcGeneration:
        return SvcGeneration(*self._open(name, as_type)).update(input=input, metadata=metadata)

    @staticmethod
    def current_observation() -> SvcGeneration | None:
        """A handle on the current span (any tracer's; the generation handle, which can set every field), or None
        outside a recording span."""
        span = trace.get_current_span()
        shared = trace_context.ensure_for_current_span()
        return SvcGeneration(span, shared) if shared is not None and span.is_recording() else None

    def flush(self, timeout_s: float) -> None:
        with self._lock:
            provider = self._provider
        if provider is not None:
            provider.force_flush(int(timeout_s * 1000))

    def shutdown(self) -> None:
        with self._lock:
            provider = self._provider
        if provider is not None:
            provider.shutdown()

    @property
    def dropped_spans(self) -> int:
        return 0 if self._exporter is None else self._exporter.dropped

    @property
    def exported_spans(self) -> int:
        return 0 if self._exporter is None else self._exporter.exported
