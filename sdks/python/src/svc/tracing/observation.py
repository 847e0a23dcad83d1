"""Handles on the spans this SDK starts: update methods that write the attributes the service's intake maps."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from opentelemetry.trace import Span, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from ..prompt import ChatPrompt, TextPrompt
from . import attributes as attr
from .serialize import to_json, to_plain
from .trace_context import TraceAttributes


def _flat_value(value: Any) -> AttributeValue | None:
    """A metadata value as one attribute: strings and numbers as they are (the intake parses only JSON objects and
    arrays back from text), everything else as JSON text."""
    plain = to_plain(value)
    if plain is None:
        return None
    if isinstance(plain, (str, bool, int, float)):
        return plain
    return to_json(plain)


def set_metadata(span: Span, prefix: str, metadata: Mapping[str, Any]) -> None:
    for key, value in metadata.items():
        flat = _flat_value(value)
        if flat is not None:
            span.set_attribute(f"{prefix}.{key}", flat)


def set_trace_fields(span: Span, trace_attributes: TraceAttributes, *, name: str | None = None,
                     user_id: str | None = None, session_id: str | None = None, tags: Iterable[str] | None = None,
                     metadata: Mapping[str, Any] | None = None, input: Any = None, output: Any = None) -> None:
    """Trace-level fields, on the trace's local root span while it records (else on `span`); user and session ids
    also go to the trace's shared attributes, for nested spans and the gateway link."""
    span = trace_attributes.fields_span(span)
    if name is not None:
        span.set_attribute(attr.TRACE_NAME, name)
    if user_id is not None:
        span.set_attribute(attr.TRACE_USER_ID, user_id)
        trace_attributes.user_id = user_id
    if session_id is not None:
        span.set_attribute(attr.TRACE_SESSION_ID, session_id)
        trace_attributes.session_id = session_id
    if tags is not None:
        # Several updates on one span add up, as tags on the stored trace do.
        existing = getattr(span, "attributes", None) or {}
        previous = existing.get(attr.TRACE_TAGS) or ()
        span.set_attribute(attr.TRACE_TAGS, list(dict.fromkeys([*previous, *(str(t) for t in tags)])))
    if metadata is not None:
        set_metadata(span, attr.TRACE_METADATA, metadata)
    if input is not None:
        span.set_attribute(attr.TRACE_INPUT, to_json(input))
    if output is not None:
        span.set_attribute(attr.TRACE_OUTPUT, to_json(output))


class SvcSpan:
    """A span (or agent, tool, chain, retriever, evaluator, guardrail, event) of a trace."""

    def __init__(self, otel_span: Span, trace_attributes: TraceAttributes) -> None:
        self._span = otel_span
        self._trace_attributes = trace_attributes
        context = otel_span.get_span_context()
        self.trace_id = format(context.trace_id, "032x")
        """The trace id, 32 hex digits: the id of GET /api/public/traces/{id}."""
        self.id = format(context.span_id, "016x")
        """The span id, 16 hex digits: the observation id."""

    @property
    def otel_span(self) -> Span:
        """The OpenTelemetry span, for attributes and events of your own."""
        return self._span

    @property
    def trace_attributes(self) -> TraceAttributes:
        return self._trace_attributes

    def update(self, *, input: Any = None, output: Any = None, metadata: Mapping[str, Any] | None = None,
               level: attr.Level | None = None, status_message: str | None = None) -> SvcSpan:
        """Sets what is given; None leaves a field as it is. Metadata keys merge with earlier ones."""
        if input is not None:
            self.record_input(input)
        if output is not None:
            self.record_output(output)
        if metadata is not None:
            set_metadata(self._span, attr.OBSERVATION_METADATA, metadata)
        if level is not None:
            self._span.set_attribute(attr.OBSERVATION_LEVEL, level)
        if status_message is not None:
            self._span.set_attribute(attr.OBSERVATION_STATUS_MESSAGE, status_message)
        return self

    def update_trace(self, *, name: str | None = None, user_id: str | None = None, session_id: str | None = None,
                     tags: Iterable[str] | None = None, metadata: Mapping[str, Any] | None = None,
                     input: Any = None, output: Any = None) -> SvcSpan:
        """Trace-level fields, as `Svc.update_current_trace`."""
        set_trace_fields(self._span, self._trace_attributes, name=name, user_id=user_id, session_id=session_id,
                         tags=tags, metadata=metadata, input=input, output=output)
        return self

    def record_input(self, value: Any) -> None:
        self._span.set_attribute(attr.OBSERVATION_INPUT, to_json(value))

    def record_output(self, value: Any) -> None:
        """Sets the output even when it is None (a function that returned None)."""
        self._span.set_attribute(attr.OBSERVATION_OUTPUT, to_json(value))

    def record_error(self, error: BaseException) -> None:
        """Level ERROR with the exception as status message, and the exception as a span event."""
        self._span.record_exception(error)
        self._span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))

    def end(self) -> None:
        self._span.end()


def _utc_iso(value: datetime) -> str:
    return value.astimezone(timezone.utc).isoformat()


class SvcGeneration(SvcSpan):
    """A generation (or embedding): a span with model, model parameters, usage, cost and completion start time."""

    def update(self, *, input: Any = None, output: Any = None, metadata: Mapping[str, Any] | None = None,
               level: attr.Level | None = None, status_message: str | None = None, model: str | None = None,
               model_parameters: Mapping[str, Any] | None = None, usage: Any = None,
               cost: float | Mapping[str, float] | None = None, completion_start_time: datetime | None = None,
               prompt: TextPrompt | ChatPrompt | None = None) -> SvcGeneration:
        """As `SvcSpan.update`, plus: `usage` a mapping of usage keys to token counts (`input`, `output`, `total`,
        `input_cached_tokens`, ...) or an OpenAI usage object; `cost` in USD, a total or a mapping per usage key;
        `prompt` the prompt version used (fallback prompts are not linked)."""
        super().update(input=input, output=output, metadata=metadata, level=level, status_message=status_message)
        span = self._span
        if model is not None:
            span.set_attribute(attr.MODEL, model)
        if model_parameters is not None:
            span.set_attribute(attr.MODEL_PARAMETERS, to_json(model_parameters))
        if usage is not None:
            span.set_attribute(attr.USAGE_DETAILS, to_json(usage))
        if cost is not None:
            span.set_attribute(attr.COST_DETAILS, to_json({"total": cost} if isinstance(cost, (int, float)) else cost))
        if completion_start_time is not None:
            span.set_attribute(attr.COMPLETION_START_TIME, _utc_iso(completion_start_time))
        if prompt is not None and not prompt.is_fallback:
            span.set_attribute(attr.PROMPT_NAME, prompt.name)
            span.set_attribute(attr.PROMPT_VERSION, prompt.version)
        return self
