"""Scores against the real service: numeric, categorical, boolean; on a trace, an observation, a session; configs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

import svc


def test_numeric_score_on_a_trace(client: svc.Svc, read_trace: Callable[..., Any]) -> None:
    with client.start_as_current_span("scored") as span:
        pass
    client.flush()
    score_id = client.create_score("accuracy", 0.75, trace_id=span.trace_id, comment="close",
                                   metadata={"grader": "human"})
    score = client.get_score(score_id)
    assert (score.name, score.value, score.data_type) == ("accuracy", 0.75, "NUMERIC")
    assert (score.trace_id, score.observation_id, score.session_id) == (span.trace_id, None, None)
    assert (score.comment, score.metadata, score.source) == ("close", {"grader": "human"}, "API")
    assert score.string_value is None
    trace = read_trace(span.trace_id, until=lambda t: len(t["scores"]) == 1)
    assert trace["scores"][0]["id"] == score_id


def test_categorical_score_on_an_observation(client: svc.Svc) -> None:
    with client.start_as_current_span("parent"):
        with client.start_as_current_span("child") as child:
            pass
    score = client.get_score(client.create_score("tone", "friendly", trace_id=child.trace_id, observation_id=child.id))
    assert (score.data_type, score.string_value) == ("CATEGORICAL", "friendly")
    assert (score.trace_id, score.observation_id) == (child.trace_id, child.id)


def test_boolean_score_on_a_session(client: svc.Svc, unique: Callable[[str], str]) -> None:
    session = unique("session")
    score = client.get_score(client.create_score("resolved", True, session_id=session))
    assert (score.data_type, score.value, score.string_value) == ("BOOLEAN", 1.0, "True")
    assert (score.session_id, score.trace_id) == (session, None)
    assert client.get_score(client.create_score("resolved", False, session_id=session)).value == 0.0


def test_score_with_a_config(client: svc.Svc, api: httpx.Client, unique: Callable[[str], str]) -> None:
    config = api.post("/score-configs", json={"name": unique("relevance"), "dataType": "NUMERIC",
                                              "minValue": 0, "maxValue": 1}).json()
    score = client.get_score(client.create_score("anything", 0.5, trace_id="b" * 32, config_id=config["id"]))
    assert (score.config_id, score.name) == (config["id"], config["name"])  # the config's name wins

    with pytest.raises(svc.ApiError) as caught:
        client.create_score("anything", 5, trace_id="b" * 32, config_id=config["id"])
    assert caught.value.status == 400 and "value" in caught.value.message


def test_repeated_id_updates_the_score(client: svc.Svc, unique: Callable[[str], str]) -> None:
    score_id = unique("score")
    client.create_score("quality", 0.1, trace_id="c" * 32, id=score_id)
    client.create_score("quality", 0.9, trace_id="c" * 32, id=score_id)
    assert client.get_score(score_id).value == 0.9


@pytest.mark.parametrize("targets", [{}, {"trace_id": "d" * 32, "session_id": "s"}, {"observation_id": "e" * 16},
                                     {"observation_id": "e" * 16, "session_id": "s"}])
def test_a_score_needs_exactly_one_target(client: svc.Svc, targets: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="trace_id"):
        client.create_score("x", 1, **targets)


def test_unknown_score_is_a_typed_404(client: svc.Svc) -> None:
    with pytest.raises(svc.NotFoundError):
        client.get_score("no-such-score")
