"""The Langfuse Python SDK's tracing (`@observe`, nested generations, `propagate_attributes`), sent over its own OTLP
exporter to our intake, as our public API answers it and as the rows were stored."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from langfuse import observe, propagate_attributes

from compat_testing import Compat

# gpt-4o-mini in the service's built-in price table: USD per token.
MINI_INPUT, MINI_OUTPUT = 0.15e-6, 0.60e-6


@pytest.fixture(scope="module")
def agent_run(compat: Compat, langfuse: Any) -> dict[str, Any]:
    """One agent run: a root span, a planning generation, a tool span holding an answering generation."""
    ids: dict[str, Any] = {"session": f"session-{uuid.uuid4().hex[:8]}", "user": f"user-{uuid.uuid4().hex[:8]}"}

    @observe(as_type="generation", name="plan-llm")
    def plan(question: str) -> str:
        langfuse.update_current_generation(
            model="gpt-4o-mini",
            model_parameters={"temperature": 0.2, "max_tokens": 256},
            usage_details={"input": 1200, "output": 300},
            metadata={"step": "plan"},
        )
        ids["plan"] = langfuse.get_current_observation_id()
        return f"look up: {question}"

    @observe(as_type="generation", name="answer-llm")
    def answer(plan_text: str) -> str:
        langfuse.update_current_generation(
            model="claude-answers-v1",
            input=[{"role": "user", "content": plan_text}],
            usage_details={"input": 50, "output": 20},
            cost_details={"input": 0.0025, "output": 0.005, "total": 0.0075},
            completion_start_time=datetime.now(timezone.utc),
        )
        ids["answer"] = langfuse.get_current_observation_id()
        return "Paris"

    @observe(name="lookup-tool", as_type="tool")
    def lookup(plan_text: str) -> str:
        ids["tool"] = langfuse.get_current_observation_id()
        return answer(plan_text)

    @observe(name="agent-run")
    def agent(question: str) -> str:
        ids["trace"] = langfuse.get_current_trace_id()
        ids["root"] = langfuse.get_current_observation_id()
        with propagate_attributes(
            user_id=ids["user"], session_id=ids["session"], tags=["compat", "python"],
            metadata={"tenant": "acme"}, trace_name="compat-agent", version="1.2.0",
        ):
            langfuse.set_current_trace_as_public()
            return lookup(plan(question))

    assert agent("What is the capital of France?") == "Paris"
    langfuse.flush()
    return ids


def by_id(observations: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in observations}


def test_trace_fields_from_observe_and_propagate_attributes(compat: Compat, agent_run: dict[str, Any]) -> None:
    trace = compat.get(f"/traces/{agent_run['trace']}")
    assert trace["id"] == agent_run["trace"]
    assert trace["name"] == "compat-agent"
    assert trace["userId"] == agent_run["user"]
    assert trace["sessionId"] == agent_run["session"]
    assert sorted(trace["tags"]) == ["compat", "python"]
    assert trace["metadata"]["tenant"] == "acme"
    assert trace["version"] == "1.2.0"
    assert trace["public"] is True
    # The root observation's input and output are the trace's: the decorated function's arguments and return value.
    assert "What is the capital of France?" in str(trace["input"])
    assert trace["output"] == "Paris"

    row = compat.rows("SELECT * FROM traces WHERE id = %s", agent_run["trace"])[0]
    assert (row["name"], row["user_id"], row["session_id"], row["source"]) == (
        "compat-agent", agent_run["user"], agent_run["session"], "ingestion",
    )
    assert row["tags"] == {"compat": "", "python": ""}
    assert row["metadata"]["tenant"] == "acme"
    assert row["output"] == "Paris"
    assert row["public"] is True


def test_nested_observations_keep_their_types_and_parents(compat: Compat, agent_run: dict[str, Any]) -> None:
    trace = compat.get(f"/traces/{agent_run['trace']}")
    observations = by_id(trace["observations"])
    assert set(observations) == {agent_run[k] for k in ("root", "plan", "tool", "answer")}
    root, plan, tool, answer = (observations[agent_run[k]] for k in ("root", "plan", "tool", "answer"))
    assert (root["type"], root["name"], root["parentObservationId"]) == ("SPAN", "agent-run", None)
    assert (plan["type"], plan["name"], plan["parentObservationId"]) == ("GENERATION", "plan-llm", root["id"])
    assert (tool["type"], tool["name"], tool["parentObservationId"]) == ("TOOL", "lookup-tool", root["id"])
    assert (answer["type"], answer["name"], answer["parentObservationId"]) == ("GENERATION", "answer-llm", tool["id"])
    assert all(o["traceId"] == agent_run["trace"] and o["endTime"] is not None for o in observations.values())

    listed = compat.get("/observations", traceId=agent_run["trace"], type="GENERATION")
    assert {o["id"] for o in listed["data"]} == {plan["id"], answer["id"]}

    rows = {r["id"]: r for r in compat.rows("SELECT * FROM observations WHERE trace_id = %s", agent_run["trace"])}
    assert {i: (r["type"], r["parent_observation_id"]) for i, r in rows.items()} == {
        root["id"]: ("SPAN", None), plan["id"]: ("GENERATION", root["id"]),
        tool["id"]: ("TOOL", root["id"]), answer["id"]: ("GENERATION", tool["id"]),
    }


def test_generation_model_usage_and_calculated_cost(compat: Compat, agent_run: dict[str, Any]) -> None:
    plan = compat.get(f"/observations/{agent_run['plan']}")
    assert plan["model"] == "gpt-4o-mini"
    assert plan["modelParameters"] == {"temperature": 0.2, "max_tokens": 256}
    assert plan["usageDetails"] == {"input": 1200, "output": 300, "total": 1500}
    assert plan["metadata"]["step"] == "plan"
    # No cost was sent: the service priced the usage with the model's prices.
    assert plan["costDetails"]["input"] == pytest.approx(1200 * MINI_INPUT)
    assert plan["costDetails"]["output"] == pytest.approx(300 * MINI_OUTPUT)
    assert plan["calculatedTotalCost"] == pytest.approx(1200 * MINI_INPUT + 300 * MINI_OUTPUT)
    assert "What is the capital of France?" in str(plan["input"])
    assert plan["output"] == "look up: What is the capital of France?"

    row = compat.rows("SELECT * FROM observations WHERE id = %s", agent_run["plan"])[0]
    assert (row["model"], row["total_tokens"]) == ("gpt-4o-mini", 1500)
    assert row["usage_details"] == {"input": 1200, "output": 300, "total": 1500}
    assert row["total_cost"] == pytest.approx(1200 * MINI_INPUT + 300 * MINI_OUTPUT)
    assert row["cost_model_id"] is not None


def test_generation_with_given_cost_and_completion_start(compat: Compat, agent_run: dict[str, Any]) -> None:
    answer = compat.get(f"/observations/{agent_run['answer']}")
    assert answer["model"] == "claude-answers-v1"
    assert answer["input"] == [{"role": "user", "content": "look up: What is the capital of France?"}]
    assert answer["output"] == "Paris"
    assert answer["costDetails"] == {"input": 0.0025, "output": 0.005, "total": 0.0075}
    assert answer["usage"] == {"unit": "TOKENS", "input": 50, "output": 20, "total": 70}
    assert answer["completionStartTime"] is not None

    trace = compat.get(f"/traces/{agent_run['trace']}")
    assert trace["totalCost"] == pytest.approx(0.0075 + 1200 * MINI_INPUT + 300 * MINI_OUTPUT)

    row = compat.rows("SELECT cost_details, total_cost, completion_start_time FROM observations WHERE id = %s", agent_run["answer"])[0]
    assert row["cost_details"] == {"input": 0.0025, "output": 0.005, "total": 0.0075}
    assert row["total_cost"] == pytest.approx(0.0075)
    assert row["completion_start_time"] is not None


def test_session_and_user_filters_find_the_trace(compat: Compat, agent_run: dict[str, Any]) -> None:
    session = compat.get(f"/sessions/{agent_run['session']}")
    assert [t["id"] for t in session["traces"]] == [agent_run["trace"]]
    listed = compat.get("/traces", userId=agent_run["user"])
    assert [t["id"] for t in listed["data"]] == [agent_run["trace"]]


def test_an_exception_in_an_observed_function_is_an_error(compat: Compat, langfuse: Any) -> None:
    ids: dict[str, Any] = {}

    @observe(name="failing-step")
    def fail() -> None:
        ids["trace"] = langfuse.get_current_trace_id()
        ids["step"] = langfuse.get_current_observation_id()
        raise ValueError("tool timed out")

    with pytest.raises(ValueError):
        fail()
    langfuse.flush()

    step = compat.get(f"/observations/{ids['step']}")
    assert (step["level"], step["statusMessage"]) == ("ERROR", "tool timed out")
    [row] = compat.rows("SELECT status FROM traces WHERE id = %s", ids["trace"])
    assert row["status"] == "error", "an ingested trace with an ERROR observation is in error"
