"""The gateway link with the real openai package: the gateway's trace of each call names the agent's span as its
parent, and carries the session and user ids set with update_current_trace."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest
from sdk_testing import by_name, wait_for

import svc
from svc import observe


def gateway_trace(api: httpx.Client, request_id: str) -> dict[str, Any]:
    """The gateway writes its traces in batches after answering."""
    response: httpx.Response = wait_for(lambda: api.get(f"/traces/{request_id}"), lambda r: r.status_code == 200)
    trace: dict[str, Any] = response.json()
    return trace


def test_gateway_calls_are_children_of_the_agent_span(client: svc.Svc, svc_service: Any, api: httpx.Client,
                                                      read_trace: Callable[..., Any],
                                                      unique: Callable[[str], str]) -> None:
    session, user = unique("session"), unique("user")
    llm = svc.openai_client(base_url=svc_service.gateway_url, api_key=svc_service.gateway_key)
    seen: dict[str, Any] = {}

    @observe
    def agent(question: str) -> str:
        client.update_current_trace(session_id=session, user_id=user)
        return ask(question)

    @observe
    def ask(question: str) -> str:
        raw = llm.chat.completions.with_raw_response.create(model="demo", messages=[{"role": "user", "content": question}])
        seen.update(request_id=raw.headers["x-svc-request-id"], trace_id=client.get_current_trace_id(),
                    span_id=client.get_current_observation_id())
        return raw.parse().choices[0].message.content or ""

    assert "hello gateway" in agent("hello gateway")
    client.flush()

    called = gateway_trace(api, seen["request_id"])
    assert called["parentTraceId"] == seen["trace_id"]
    assert called["parentObservationId"] == seen["span_id"]
    assert (called["sessionId"], called["userId"]) == (session, user)
    assert called["totalCost"] > 0

    agent_trace = read_trace(seen["trace_id"], observations=2)
    assert by_name(agent_trace)["ask"]["id"] == seen["span_id"]
    assert (agent_trace["sessionId"], agent_trace["userId"]) == (session, user)


def test_async_client_links_calls_from_concurrent_tasks(client: svc.Svc, svc_service: Any, api: httpx.Client,
                                                        unique: Callable[[str], str]) -> None:
    session = unique("async-session")
    llm = svc.async_openai_client(base_url=svc_service.gateway_url + "/v1", api_key=svc_service.gateway_key)
    calls: list[tuple[str, str]] = []

    @observe
    async def step(n: int) -> None:
        raw = await llm.chat.completions.with_raw_response.create(
            model="demo", messages=[{"role": "user", "content": f"step {n}"}])
        calls.append((raw.headers["x-svc-request-id"], client.get_current_observation_id() or ""))

    @observe
    async def run() -> str:
        client.update_current_trace(session_id=session)
        await asyncio.gather(step(1), step(2))
        return client.get_current_trace_id() or ""

    trace_id = asyncio.run(run())
    client.flush()
    assert len(calls) == 2 and calls[0][1] != calls[1][1]
    for request_id, span_id in calls:
        called = gateway_trace(api, request_id)
        assert (called["parentTraceId"], called["parentObservationId"]) == (trace_id, span_id)
        assert called["sessionId"] == session and called["userId"] is None


def test_calls_outside_a_span_carry_no_parent(svc_service: Any, api: httpx.Client) -> None:
    llm = svc.openai_client(base_url=svc_service.gateway_url, api_key=svc_service.gateway_key)
    raw = llm.chat.completions.with_raw_response.create(model="demo", messages=[{"role": "user", "content": "alone"}])
    called = gateway_trace(api, raw.headers["x-svc-request-id"])
    assert called["parentTraceId"] is None and called["parentObservationId"] is None


def test_an_http_client_of_your_own_gets_the_hook(client: svc.Svc, svc_service: Any, api: httpx.Client) -> None:
    llm = svc.openai_client(base_url=svc_service.gateway_url, api_key=svc_service.gateway_key,
                            http_client=openai.DefaultHttpxClient(), max_retries=0)
    with client.start_as_current_span("own-client") as span:
        raw = llm.chat.completions.with_raw_response.create(model="demo", messages=[{"role": "user", "content": "x"}])
    called = gateway_trace(api, raw.headers["x-svc-request-id"])
    assert (called["parentTraceId"], called["parentObservationId"]) == (span.trace_id, span.id)


def test_gateway_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, svc_service: Any) -> None:
    monkeypatch.setenv("SVC_GATEWAY_URL", svc_service.gateway_url + "/v1/")
    monkeypatch.setenv("SVC_GATEWAY_KEY", svc_service.gateway_key)
    llm = svc.openai_client()
    assert str(llm.base_url) == svc_service.gateway_url + "/v1/"
    assert [m.id for m in llm.models.list().data] == ["demo"]
    assert str(svc.async_openai_client().base_url) == svc_service.gateway_url + "/v1/"


@pytest.mark.parametrize(("variable", "value"), [("SVC_GATEWAY_URL", None), ("SVC_GATEWAY_KEY", None),
                                                 ("SVC_GATEWAY_URL", "gateway:8080")])
def test_missing_or_malformed_gateway_settings_name_the_variable(monkeypatch: pytest.MonkeyPatch, variable: str,
                                                                 value: str | None) -> None:
    monkeypatch.setenv("SVC_GATEWAY_URL", "http://127.0.0.1:8080")
    monkeypatch.setenv("SVC_GATEWAY_KEY", "sk-svc-key")
    if value is None:
        monkeypatch.delenv(variable)
    else:
        monkeypatch.setenv(variable, value)
    for make in (svc.openai_client, svc.async_openai_client):
        with pytest.raises(svc.ConfigError) as caught:
            make()
        assert caught.value.variable == variable and variable in str(caught.value)


def test_gateway_headers(client: svc.Svc) -> None:
    assert svc.gateway_headers() == {}
    with client.start_as_current_span("outer") as outer:
        client.update_current_trace(session_id="s-1", user_id="ünïcode")  # not ASCII: left out of the headers
        with client.start_as_current_span("inner") as inner:
            headers = svc.gateway_headers()
    match = re.fullmatch(r"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}", headers["traceparent"])
    assert match is not None and match.groups() == (outer.trace_id, inner.id)
    assert headers["svc-session-id"] == "s-1" and "svc-user-id" not in headers
