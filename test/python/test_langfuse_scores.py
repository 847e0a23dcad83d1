"""Scores sent by the Langfuse Python SDK (it batches them to POST /api/public/scores as a JSON array): numeric,
categorical and boolean, on a trace, an observation and a session, one with a score config; as our public API answers
them and as stored."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langfuse import propagate_attributes

from compat_testing import Compat


@pytest.fixture(scope="module")
def scored(compat: Compat, langfuse: Any) -> dict[str, Any]:
    ids: dict[str, Any] = {"session": f"scored-session-{uuid.uuid4().hex[:8]}"}
    config = langfuse.api.score_configs.create(name="quality", data_type="NUMERIC", min_value=0, max_value=1)
    ids["config"] = config.id
    with langfuse.start_as_current_observation(name="scored-run") as root:
        with propagate_attributes(session_id=ids["session"]):
            with root.start_as_current_observation(name="scored-generation", as_type="generation", model="gpt-4o-mini") as generation:
                generation.update(output="42")
                generation.score(name="sentiment", value="positive", data_type="CATEGORICAL", comment="upbeat")
                generation.score(name="hallucination", value=0, data_type="BOOLEAN")
                ids["generation"] = generation.id
        root.score_trace(name="helpful", value=1, data_type="BOOLEAN", metadata={"reviewer": "bot"})
        ids["trace"] = root.trace_id
    langfuse.create_score(name="accuracy", value=0.9, trace_id=ids["trace"], data_type="NUMERIC", comment="close", score_id=f"acc-{ids['trace']}")
    # A score with a config takes the config's name and data type (as in Langfuse).
    langfuse.create_score(name="ignored-for-the-config-name", value=0.75, trace_id=ids["trace"], config_id=ids["config"])
    langfuse.create_score(name="conversation", value="resolved", session_id=ids["session"], data_type="CATEGORICAL")
    langfuse.flush()
    return ids


def by_name(scores: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in scores}


def test_trace_and_observation_scores(compat: Compat, scored: dict[str, Any]) -> None:
    scores = by_name(compat.get("/v2/scores", traceId=scored["trace"], limit=100)["data"])
    assert set(scores) == {"sentiment", "hallucination", "helpful", "accuracy", "quality"}

    accuracy = scores["accuracy"]
    assert accuracy["id"] == f"acc-{scored['trace']}"
    assert (accuracy["dataType"], accuracy["value"], accuracy["comment"], accuracy["observationId"]) == ("NUMERIC", 0.9, "close", None)
    assert accuracy["source"] == "API"
    assert "stringValue" not in accuracy

    sentiment = scores["sentiment"]
    assert (sentiment["dataType"], sentiment["stringValue"], sentiment["observationId"]) == ("CATEGORICAL", "positive", scored["generation"])
    hallucination = scores["hallucination"]
    assert (hallucination["dataType"], hallucination["value"], hallucination["stringValue"]) == ("BOOLEAN", 0, "False")
    assert hallucination["observationId"] == scored["generation"]
    helpful = scores["helpful"]
    assert (helpful["dataType"], helpful["value"], helpful["stringValue"], helpful["observationId"]) == ("BOOLEAN", 1, "True", None)
    assert helpful["metadata"] == {"reviewer": "bot"}
    assert (scores["quality"]["configId"], scores["quality"]["dataType"]) == (scored["config"], "NUMERIC")

    observation_scores = compat.get("/scores", observationId=scored["generation"])["data"]
    assert sorted(s["name"] for s in observation_scores) == ["hallucination", "sentiment"]
    assert compat.get(f"/scores/{accuracy['id']}")["value"] == 0.9
    trace = compat.get(f"/traces/{scored['trace']}")
    assert sorted(s["name"] for s in trace["scores"]) == ["accuracy", "hallucination", "helpful", "quality", "sentiment"]

    rows = {r["name"]: r for r in compat.rows("SELECT * FROM scores WHERE trace_id = %s", scored["trace"])}
    assert {n: (r["data_type"], r["value"], r["string_value"], r["observation_id"]) for n, r in rows.items()} == {
        "accuracy": ("NUMERIC", 0.9, None, None),
        "quality": ("NUMERIC", 0.75, None, None),
        "helpful": ("BOOLEAN", 1, "True", None),
        "hallucination": ("BOOLEAN", 0, "False", scored["generation"]),
        "sentiment": ("CATEGORICAL", None, "positive", scored["generation"]),
    }
    assert rows["quality"]["config_id"] == scored["config"]
    assert rows["accuracy"]["comment"] == "close"


def test_session_score(compat: Compat, scored: dict[str, Any]) -> None:
    [score] = compat.get("/v2/scores", sessionId=scored["session"])["data"]
    assert (score["name"], score["dataType"], score["stringValue"], score["traceId"]) == ("conversation", "CATEGORICAL", "resolved", None)
    [row] = compat.rows("SELECT session_id, trace_id, string_value FROM scores WHERE id = %s", score["id"])
    assert row == {"session_id": scored["session"], "trace_id": None, "string_value": "resolved"}


def test_the_sdks_v3_score_list_pages_with_a_cursor(compat: Compat, langfuse: Any, scored: dict[str, Any]) -> None:
    """`api.scores.get_many` (GET /api/public/v3/scores), parsed by the SDK's own models: typed values, field groups,
    filters and cursor paging."""
    everything = langfuse.api.scores.get_many(trace_id=scored["trace"], fields="details,subject,annotation", limit=100)
    scores = {s.name: s for s in everything.data}
    assert set(scores) == {"sentiment", "hallucination", "helpful", "accuracy", "quality"}
    assert everything.meta.limit == 100 and everything.meta.cursor is None
    accuracy = scores["accuracy"]
    assert (accuracy.data_type, accuracy.value, accuracy.comment, accuracy.environment) == ("NUMERIC", 0.9, "close", "default")
    assert (accuracy.subject.kind, accuracy.subject.id) == ("trace", scored["trace"])
    assert (scores["helpful"].value, scores["hallucination"].value) == (True, False)
    assert scores["helpful"].metadata == {"reviewer": "bot"}
    assert scores["sentiment"].value == "positive"
    assert (scores["sentiment"].subject.kind, scores["sentiment"].subject.id) == ("observation", scored["generation"])
    assert scores["sentiment"].subject.trace_id == scored["trace"]
    assert scores["quality"].config_id == scored["config"]

    core = langfuse.api.scores.get_many(trace_id=scored["trace"], limit=100).data[0]
    assert core.comment is None and core.subject is None, "groups only when asked"

    seen: list[str] = []
    cursor = None
    while True:
        page = langfuse.api.scores.get_many(trace_id=scored["trace"], limit=2, cursor=cursor)
        assert len(page.data) <= 2
        seen += [s.id for s in page.data]
        cursor = page.meta.cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(s.id for s in everything.data), "every score once across pages"

    booleans = langfuse.api.scores.get_many(trace_id=scored["trace"], data_type="boolean", value="true")
    assert [s.name for s in booleans.data] == ["helpful"]
    numeric = langfuse.api.scores.get_many(trace_id=scored["trace"], data_type="NUMERIC", value_min=0.8)
    assert [s.name for s in numeric.data] == ["accuracy"]
    session = langfuse.api.scores.get_many(session_id=scored["session"], fields="subject")
    assert [(s.name, s.value, s.subject.kind) for s in session.data] == [("conversation", "resolved", "session")]


@pytest.mark.parametrize(("query", "param"), [
    ({"limit": "101"}, "limit"),
    ({"fields": "details,everything"}, "fields"),
    ({"cursor": "not-a-cursor"}, "cursor"),
    ({"observationId": "o1"}, "observationId"),
    ({"traceId": "t1", "sessionId": "s1"}, "sessionId"),
    ({"value": "1"}, "value"),
    ({"dataType": "TEXT", "valueMin": "1"}, "valueMin"),
])
def test_v3_score_list_refusals(compat: Compat, query: dict[str, str], param: str) -> None:
    answer = compat.api.get("/v3/scores", params=query)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"][0]["path"] == [param]
