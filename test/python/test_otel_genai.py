"""The OpenTelemetry Python SDK with its OTLP/HTTP (protobuf) exporter, pointed at our intake with Basic auth, sending
spans that follow the GenAI semantic conventions: an agent span holding a chat generation, a tool call and an
embeddings call. Checked through our public API (types, nesting, model, usage, cost, session, user, messages) and the
stored rows."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from compat_testing import Compat

# gpt-4o-mini and text-embedding-3-small in the service's built-in price table: USD per token.
MINI = {"input": 0.15e-6, "output": 0.60e-6, "input_cached_tokens": 0.075e-6}
EMBEDDING_INPUT = 0.02e-6


@pytest.fixture(scope="module")
def exported(compat: Compat) -> dict[str, Any]:
    service = compat.service
    token = base64.b64encode(f"{service.public_key}:{service.secret_key}".encode()).decode()
    exporter = OTLPSpanExporter(endpoint=f"{service.admin_url}/api/public/otel/v1/traces", headers={"Authorization": f"Basic {token}"})
    provider = TracerProvider(resource=Resource.create({"service.name": "support-bot", "service.version": "2.4.0"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("support-bot.agent", "2.4.0")
    ids: dict[str, Any] = {"conversation": f"conv-{uuid.uuid4().hex[:8]}", "user": f"user-{uuid.uuid4().hex[:8]}"}

    with tracer.start_as_current_span("invoke_agent support-bot", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support-bot", "gen_ai.provider.name": "openai",
        "gen_ai.conversation.id": ids["conversation"], "user.id": ids["user"],
    }) as agent:
        with tracer.start_as_current_span("chat gpt-4o-mini", attributes={
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o-mini", "gen_ai.request.temperature": 0.2, "gen_ai.request.max_tokens": 512,
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "You help with orders."}]),
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Where is order 42?"}]}]),
        }) as chat:
            # Known after the call, as instrumentations set them.
            chat.set_attributes({
                "gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.response.id": "chatcmpl-1",
                "gen_ai.response.finish_reasons": ["tool_calls"],
                "gen_ai.usage.input_tokens": 1000, "gen_ai.usage.output_tokens": 200,
                "gen_ai.usage.cache_read.input_tokens": 400, "gen_ai.usage.reasoning.output_tokens": 50,
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "tool_call", "id": "call_1", "name": "lookup_order", "arguments": {"order": 42}}], "finish_reason": "tool_calls"}]),
            })
        with tracer.start_as_current_span("execute_tool lookup_order", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.arguments": json.dumps({"order": 42}), "gen_ai.tool.call.result": json.dumps({"status": "shipped"}),
        }) as tool:
            pass
        with tracer.start_as_current_span("embeddings text-embedding-3-small", attributes={
            "gen_ai.operation.name": "embeddings", "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "text-embedding-3-small", "gen_ai.usage.input_tokens": 300,
        }) as embedding:
            pass
    assert provider.force_flush(30_000)
    provider.shutdown()

    def hex_id(span: Any, trace: bool = False) -> str:
        context = span.get_span_context()
        return f"{context.trace_id:032x}" if trace else f"{context.span_id:016x}"

    ids.update(trace=hex_id(agent, trace=True), agent=hex_id(agent), chat=hex_id(chat), tool=hex_id(tool), embedding=hex_id(embedding))
    return ids


def test_trace_session_user_and_nesting(compat: Compat, exported: dict[str, Any]) -> None:
    trace = compat.get(f"/traces/{exported['trace']}")
    assert trace["name"] == "invoke_agent support-bot"
    assert (trace["userId"], trace["sessionId"], trace["version"]) == (exported["user"], exported["conversation"], "2.4.0")
    observations = {o["id"]: o for o in trace["observations"]}
    assert {i: (o["type"], o["parentObservationId"]) for i, o in observations.items()} == {
        exported["agent"]: ("AGENT", None),
        exported["chat"]: ("GENERATION", exported["agent"]),
        exported["tool"]: ("TOOL", exported["agent"]),
        exported["embedding"]: ("EMBEDDING", exported["agent"]),
    }
    assert observations[exported["tool"]]["name"] == "lookup_order"
    assert observations[exported["tool"]]["input"] == {"order": 42}
    assert observations[exported["tool"]]["output"] == {"status": "shipped"}

    session = compat.get(f"/sessions/{exported['conversation']}")
    assert [t["id"] for t in session["traces"]] == [exported["trace"]]

    [row] = compat.rows("SELECT name, user_id, session_id, source FROM traces WHERE id = %s", exported["trace"])
    assert row == {"name": "invoke_agent support-bot", "user_id": exported["user"], "session_id": exported["conversation"], "source": "ingestion"}
    rows = compat.rows("SELECT id, type, parent_observation_id FROM observations WHERE trace_id = %s", exported["trace"])
    assert {r["id"]: (r["type"], r["parent_observation_id"]) for r in rows} == {
        i: (o["type"], o["parentObservationId"]) for i, o in observations.items()
    }


def test_chat_generation_model_usage_cost_and_messages(compat: Compat, exported: dict[str, Any]) -> None:
    chat = compat.get(f"/observations/{exported['chat']}")
    assert (chat["type"], chat["name"]) == ("GENERATION", "chat gpt-4o-mini")
    assert chat["model"] == "gpt-4o-mini-2024-07-18", "the response model is what was served"
    assert chat["modelParameters"] == {"temperature": 0.2, "max_tokens": 512}
    # OTel counts are inclusive; stored as exclusive buckets: 1000 input = 600 uncached + 400 cached.
    usage = {"input": 600, "input_cached_tokens": 400, "output": 150, "output_reasoning_tokens": 50}
    assert chat["usageDetails"] == {**usage, "total": 1200}
    # Priced by the built-in gpt-4o-mini (the dated response model matches it); reasoning is billed as output.
    assert chat["costDetails"] == pytest.approx({
        "input": 600 * MINI["input"], "input_cached_tokens": 400 * MINI["input_cached_tokens"],
        "output": 150 * MINI["output"], "output_reasoning_tokens": 50 * MINI["output"],
        "total": 600 * MINI["input"] + 400 * MINI["input_cached_tokens"] + 200 * MINI["output"],
    })
    assert chat["calculatedTotalCost"] == pytest.approx(chat["costDetails"]["total"])
    assert chat["input"][0] == {"role": "system", "content": [{"type": "text", "content": "You help with orders."}]}
    assert chat["input"][1]["parts"][0]["content"] == "Where is order 42?"
    assert chat["output"][0]["parts"][0]["name"] == "lookup_order"
    assert chat["metadata"]["attributes"]["gen_ai.provider.name"] == "openai"
    assert chat["metadata"]["resourceAttributes"]["service.name"] == "support-bot"

    [row] = compat.rows("SELECT model, usage_details, total_tokens, total_cost, cost_model_id FROM observations WHERE id = %s", exported["chat"])
    assert (row["model"], row["total_tokens"], row["cost_model_id"]) == ("gpt-4o-mini-2024-07-18", 1200, "builtin:gpt-4o-mini")
    assert row["usage_details"] == {**usage, "total": 1200}
    assert row["total_cost"] == pytest.approx(chat["calculatedTotalCost"])


def test_embedding_cost_and_the_trace_total(compat: Compat, exported: dict[str, Any]) -> None:
    embedding = compat.get(f"/observations/{exported['embedding']}")
    assert (embedding["type"], embedding["model"]) == ("EMBEDDING", "text-embedding-3-small")
    assert embedding["usageDetails"] == {"input": 300, "total": 300}, "no total_tokens given: the sum"
    assert embedding["calculatedTotalCost"] == pytest.approx(300 * EMBEDDING_INPUT)
    chat = compat.get(f"/observations/{exported['chat']}")
    trace = compat.get(f"/traces/{exported['trace']}")
    assert trace["totalCost"] == pytest.approx(chat["calculatedTotalCost"] + 300 * EMBEDDING_INPUT)
    [row] = compat.rows("SELECT sum(total_cost) AS cost FROM observations WHERE trace_id = %s", exported["trace"])
    assert row["cost"] == pytest.approx(trace["totalCost"])
