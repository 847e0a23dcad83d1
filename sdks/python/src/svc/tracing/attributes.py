"""Span attribute names the service's OTel intake maps (src/ingestion/otel/: trace-fields.ts, observation-fields.ts,
observation-type.ts), so what the SDK records is what GET /api/public/traces/{id} and the dashboard show."""

from __future__ import annotations

from typing import Literal

TRACE_NAME = "langfuse.trace.name"
TRACE_USER_ID = "langfuse.user.id"
TRACE_SESSION_ID = "langfuse.session.id"
TRACE_TAGS = "langfuse.trace.tags"
TRACE_METADATA = "langfuse.trace.metadata"
"""A prefix: one attribute per key (`langfuse.trace.metadata.<key>`), so repeated updates merge."""
TRACE_INPUT = "langfuse.trace.input"
TRACE_OUTPUT = "langfuse.trace.output"

OBSERVATION_TYPE = "langfuse.observation.type"
OBSERVATION_INPUT = "langfuse.observation.input"
OBSERVATION_OUTPUT = "langfuse.observation.output"
OBSERVATION_METADATA = "langfuse.observation.metadata"
"""A prefix, as TRACE_METADATA."""
OBSERVATION_LEVEL = "langfuse.observation.level"
OBSERVATION_STATUS_MESSAGE = "langfuse.observation.status_message"

MODEL = "langfuse.observation.model.name"
MODEL_PARAMETERS = "langfuse.observation.model.parameters"
USAGE_DETAILS = "langfuse.observation.usage_details"
COST_DETAILS = "langfuse.observation.cost_details"
COMPLETION_START_TIME = "langfuse.observation.completion_start_time"
PROMPT_NAME = "langfuse.observation.prompt.name"
PROMPT_VERSION = "langfuse.observation.prompt.version"

Level = Literal["DEBUG", "DEFAULT", "WARNING", "ERROR"]

SpanType = Literal["span", "agent", "tool", "chain", "retriever", "evaluator", "guardrail", "event"]
"""Observation types recorded as spans."""
GenerationType = Literal["generation", "embedding"]
"""Observation types that carry a model, usage and cost."""
ObservationType = Literal["span", "agent", "tool", "chain", "retriever", "evaluator", "guardrail", "event",
                          "generation", "embedding"]
