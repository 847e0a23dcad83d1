"""The current trace's user and session ids, kept beside the OTel context so that nested spans, asyncio tasks and the
gateway link see what `update_current_trace` set anywhere in the trace."""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass

from opentelemetry import trace


@dataclass
class TraceAttributes:
    """Shared, mutable, by every span of one trace that this SDK started in this process."""

    trace_id: int
    root_span: trace.Span | None = None
    """The first span of the trace this SDK started here: trace fields are written on it while it is recording."""
    user_id: str | None = None
    session_id: str | None = None

    def fields_span(self, current: trace.Span) -> trace.Span:
        """Where trace fields go: the local root span while it records, else the current span. One span carrying
        them all leaves the intake nothing to merge between spans that started in the same millisecond."""
        root = self.root_span
        return root if root is not None and root.is_recording() else current


_current: ContextVar[TraceAttributes | None] = ContextVar("svc_trace_attributes", default=None)


def of_trace(trace_id: int) -> TraceAttributes | None:
    """The attributes of this trace in the current context (a value left from another trace does not count)."""
    found = _current.get()
    return found if found is not None and found.trace_id == trace_id else None


def for_new_span(span: trace.Span) -> TraceAttributes:
    """The attributes a new span shares: its parent's, or fresh ones (with it as the root) for a new trace."""
    trace_id = span.get_span_context().trace_id
    return of_trace(trace_id) or TraceAttributes(trace_id, root_span=span)


def activate(attributes: TraceAttributes) -> Token[TraceAttributes | None]:
    return _current.set(attributes)


def deactivate(token: Token[TraceAttributes | None]) -> None:
    _current.reset(token)


def of_current_span() -> TraceAttributes | None:
    """The current trace's attributes, or None outside a recording span."""
    context = trace.get_current_span().get_span_context()
    return of_trace(context.trace_id) if context.is_valid else None


def ensure_for_current_span() -> TraceAttributes | None:
    """The current trace's attributes, made for it when a span this SDK did not start (another tracer's) is current."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    found = of_trace(context.trace_id)
    if found is None:
        found = TraceAttributes(context.trace_id)
        # Not reset: it stays for the rest of this context, and the trace id check keeps it out of other traces.
        _current.set(found)
    return found
