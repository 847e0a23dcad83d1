"""Tracing: @observe, the span and generation context managers and the trace fields, read back through
GET /api/public/traces/{id} of the real service; export failures and the flush at process exit."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from datetime import datetime, timezone
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sdk_testing import by_name

import svc
from svc import observe

ReadTrace = Callable[..., dict[str, Any]]


def test_nested_sync_functions(client: svc.Svc, read_trace: ReadTrace) -> None:
    trace_ids: list[str | None] = []

    @observe
    def retrieve(query: str, k: int = 2) -> list[str]:
        return [f"doc-{i}" for i in range(k)]

    @observe
    def answer(question: str) -> dict[str, Any]:
        trace_ids.append(client.get_current_trace_id())
        docs = retrieve(question, k=3)
        return {"answer": "42", "sources": docs}

    assert answer("meaning of life?") == {"answer": "42", "sources": ["doc-0", "doc-1", "doc-2"]}
    assert client.get_current_trace_id() is None  # nothing stays current after the call
    client.flush()

    trace = read_trace(trace_ids[0], observations=2)
    observations = by_name(trace)
    root, child = observations["answer"], observations["retrieve"]
    assert root["parentObservationId"] is None and child["parentObservationId"] == root["id"]
    assert root["type"] == child["type"] == "SPAN"
    assert root["input"] == {"question": "meaning of life?"}
    assert root["output"] == {"answer": "42", "sources": ["doc-0", "doc-1", "doc-2"]}
    assert child["input"] == {"query": "meaning of life?", "k": 3}
    assert child["output"] == ["doc-0", "doc-1", "doc-2"]
    # The root span names the trace and gives its input and output.
    assert (trace["name"], trace["input"], trace["output"]) == ("answer", root["input"], root["output"])


def test_async_functions_and_concurrent_children(client: svc.Svc, read_trace: ReadTrace) -> None:
    @observe(name="fetch-page")
    async def fetch(page: int) -> str:
        await asyncio.sleep(0.01)
        return f"page {page}"

    @observe
    async def crawl(pages: int) -> list[str]:
        return list(await asyncio.gather(*(fetch(p) for p in range(pages))))

    async def main() -> str:
        with client.start_as_current_span("crawl-job") as job:
            assert await crawl(3) == ["page 0", "page 1", "page 2"]
            return job.trace_id

    trace_id = asyncio.run(main())
    client.flush()
    trace = read_trace(trace_id, observations=5)
    observations = trace["observations"]
    crawl_span = next(o for o in observations if o["name"] == "crawl")
    pages = [o for o in observations if o["name"] == "fetch-page"]
    assert len(pages) == 3 and all(p["parentObservationId"] == crawl_span["id"] for p in pages)
    assert sorted(p["output"] for p in pages) == ["page 0", "page 1", "page 2"]
    assert crawl_span["output"] == ["page 0", "page 1", "page 2"]


def test_generators_record_what_they_yield_and_stay_out_of_the_consumers_code(client: svc.Svc,
                                                                               read_trace: ReadTrace) -> None:
    @observe
    def stream(words: int) -> Iterator[str]:
        for i in range(words):
            yield f"w{i} "

    with client.start_as_current_span("consumer") as consumer:
        received = []
        for word in stream(3):
            with client.start_as_current_span(f"handle {word.strip()}"):
                received.append(word)
    assert received == ["w0 ", "w1 ", "w2 "]
    client.flush()

    observations = by_name(read_trace(consumer.trace_id, observations=5))
    assert observations["stream"]["output"] == "w0 w1 w2 "
    assert observations["stream"]["input"] == {"words": 3}
    assert observations["stream"]["parentObservationId"] == consumer.id
    # The consumer's spans between items are children of the consumer, not of the generator.
    assert {observations[f"handle w{i}"]["parentObservationId"] for i in range(3)} == {consumer.id}


def test_generator_return_value_send_and_early_close(client: svc.Svc, read_trace: ReadTrace) -> None:
    @observe
    def echo() -> Any:
        received = yield "ready"
        while received != "stop":
            received = yield f"got {received}"
        return "done"

    @observe
    def numbers() -> Generator[int, None, None]:
        yield from range(100)

    with client.start_as_current_span("driver") as driver:
        gen = echo()
        assert next(gen) == "ready"
        assert gen.send("a") == "got a"
        with pytest.raises(StopIteration) as stopped:
            gen.send("stop")
        assert stopped.value.value == "done"

        taken = numbers()
        assert [next(taken) for _ in range(3)] == [0, 1, 2]
        taken.close()
    client.flush()

    observations = by_name(read_trace(driver.trace_id, observations=3))
    assert observations["echo"]["output"] == "readygot a"
    assert observations["numbers"]["output"] == [0, 1, 2]
    assert observations["numbers"]["endTime"] is not None


def test_async_generators(client: svc.Svc, read_trace: ReadTrace) -> None:
    @observe
    async def tokens(text: str) -> AsyncIterator[str]:
        for token in text.split():
            await asyncio.sleep(0)
            yield token

    @observe
    async def summarize(text: str) -> str:
        return " ".join([t.upper() async for t in tokens(text)])

    async def main() -> str:
        with client.start_as_current_span("summary-job") as job:
            assert await summarize("a b c") == "A B C"
            return job.trace_id

    trace_id = asyncio.run(main())
    client.flush()
    observations = by_name(read_trace(trace_id, observations=3))
    assert observations["tokens"]["output"] == "abc"
    assert observations["tokens"]["parentObservationId"] == observations["summarize"]["id"]
    assert observations["summarize"]["output"] == "A B C"


def test_exceptions_are_recorded_as_errors_and_reraised(client: svc.Svc, read_trace: ReadTrace) -> None:
    @observe
    def fails(order_id: int) -> None:
        raise LookupError(f"order {order_id} not found")

    @observe
    async def fails_async() -> None:
        raise ValueError("bad input")

    @observe
    def fails_midway() -> Iterator[int]:
        yield 1
        raise RuntimeError("stream broke")

    with client.start_as_current_span("job") as job:
        with pytest.raises(LookupError, match="order 7 not found"):
            fails(7)
        with pytest.raises(ValueError, match="bad input"):
            asyncio.run(fails_async())
        with pytest.raises(RuntimeError, match="stream broke"):
            list(fails_midway())
    client.flush()

    observations = by_name(read_trace(job.trace_id, observations=4))
    assert (observations["fails"]["level"], observations["fails"]["statusMessage"]) == ("ERROR", "LookupError: order 7 not found")
    assert observations["fails"]["input"] == {"order_id": 7} and observations["fails"]["output"] is None
    assert (observations["fails_async"]["level"], observations["fails_async"]["statusMessage"]) == ("ERROR", "ValueError: bad input")
    assert observations["fails_midway"]["level"] == "ERROR" and observations["fails_midway"]["output"] == [1]
    assert observations["job"]["level"] == "DEFAULT"


def test_context_manager_exception_marks_the_span(client: svc.Svc, read_trace: ReadTrace) -> None:
    with pytest.raises(KeyError):
        with client.start_as_current_span("lookup") as span:
            raise KeyError("user-9")
    client.flush()
    observation = by_name(read_trace(span.trace_id, observations=1))["lookup"]
    assert observation["level"] == "ERROR" and observation["statusMessage"] == "KeyError: 'user-9'"


def test_capture_flags_name_and_methods(client: svc.Svc, read_trace: ReadTrace) -> None:
    class Store:
        @observe(name="store.save", capture_input=False)
        def save(self, secret: str) -> str:
            return "saved"

        @observe(capture_output=False)
        def load(self, key: str, **options: Any) -> str:
            return "secret value"

    with client.start_as_current_span("store-job") as job:
        Store().save("hunter2")
        Store().load("k1", fresh=True)
    client.flush()
    observations = by_name(read_trace(job.trace_id, observations=3))
    assert observations["store.save"]["input"] is None and observations["store.save"]["output"] == "saved"
    assert observations["load"]["input"] == {"key": "k1", "fresh": True}  # self left out, **options spread
    assert observations["load"]["output"] is None


def test_observed_generation_with_model_usage_and_cost(client: svc.Svc, read_trace: ReadTrace) -> None:
    started = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)

    @observe(as_type="generation")
    def complete(prompt: str) -> str:
        client.update_current_generation(model="gpt-4o-mini", model_parameters={"temperature": 0.1, "max_tokens": 50},
                                         usage={"input": 12, "output": 3}, cost={"input": 0.0012, "output": 0.0006},
                                         completion_start_time=started)
        return "Paris"

    with client.start_as_current_span("qa") as qa:
        assert complete("Capital of France?") == "Paris"
    client.flush()

    trace = read_trace(qa.trace_id, observations=2)
    generation = by_name(trace)["complete"]
    assert generation["type"] == "GENERATION" and generation["parentObservationId"] == qa.id
    assert generation["model"] == "gpt-4o-mini"
    assert generation["modelParameters"] == {"temperature": 0.1, "max_tokens": 50}
    assert generation["usageDetails"] == {"input": 12, "output": 3, "total": 15}
    assert generation["costDetails"] == {"input": 0.0012, "output": 0.0006}
    assert generation["calculatedTotalCost"] == pytest.approx(0.0018)
    assert generation["completionStartTime"] == "2026-01-02T03:04:05.678Z"
    assert (generation["input"], generation["output"]) == ({"prompt": "Capital of France?"}, "Paris")
    assert trace["totalCost"] == pytest.approx(0.0018)


def test_generation_context_manager_with_openai_usage_and_a_prompt(client: svc.Svc, read_trace: ReadTrace,
                                                                    unique: Callable[[str], str]) -> None:
    prompt = client.create_prompt(unique("linked"), "Say {{word}}", labels=["production"])
    with client.start_as_current_generation("llm", model="demo", input=[{"role": "user", "content": "hi"}],
                                            prompt=prompt) as generation:
        generation.update(output={"role": "assistant", "content": "hello"}, cost=0.002,
                          usage={"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25,
                                 "prompt_tokens_details": {"cached_tokens": 8}})
    client.flush()

    observed = by_name(read_trace(generation.trace_id, observations=1))["llm"]
    assert observed["type"] == "GENERATION" and observed["model"] == "demo"
    assert observed["usageDetails"] == {"input": 12, "input_cached_tokens": 8, "output": 5, "total": 25}
    assert observed["costDetails"] == {"total": 0.002}
    assert (observed["promptName"], observed["promptVersion"]) == (prompt.name, 1)
    assert observed["input"] == [{"role": "user", "content": "hi"}]
    assert observed["output"] == {"role": "assistant", "content": "hello"}


def test_span_updates_metadata_level_and_other_types(client: svc.Svc, read_trace: ReadTrace) -> None:
    with client.start_as_current_span("agent-run", as_type="agent", metadata={"team": "search"}) as run:
        run.update(metadata={"attempt": 2, "flags": ["a", "b"]}, level="WARNING", status_message="slow tool")
        run.update_trace(name="agent-trace", user_id="agent-user", tags=["agents"])
        with client.start_as_current_span("search-tool", as_type="tool", input={"q": "x"}):
            client.update_current_span(output={"hits": 0}, level="DEBUG")
    client.flush()

    trace = read_trace(run.trace_id, observations=2)
    assert (trace["name"], trace["userId"], trace["tags"]) == ("agent-trace", "agent-user", ["agents"])
    observations = by_name(trace)
    agent, tool = observations["agent-run"], observations["search-tool"]
    assert agent["type"] == "AGENT" and tool["type"] == "TOOL"
    assert {k: agent["metadata"][k] for k in ("team", "attempt", "flags")} == {"team": "search", "attempt": 2, "flags": ["a", "b"]}
    assert (agent["level"], agent["statusMessage"]) == ("WARNING", "slow tool")
    assert (tool["level"], tool["input"], tool["output"]) == ("DEBUG", {"q": "x"}, {"hits": 0})


def test_update_current_trace_from_a_nested_function(client: svc.Svc, read_trace: ReadTrace,
                                                     unique: Callable[[str], str]) -> None:
    session, user = unique("session"), unique("user")

    @observe
    def authenticate() -> None:
        assert client.update_current_trace(user_id=user, tags=["auth"], metadata={"plan": "pro"})

    @observe
    def handle(request: str) -> str:
        authenticate()
        client.update_current_trace(name="support-request", session_id=session, tags=["support"],
                                    metadata={"region": "eu", "limits": {"rpm": 5}},
                                    input={"request": request}, output={"reply": "on it"})
        return "on it"

    with client.start_as_current_span("http") as http:
        handle("refund please")
        trace_id, span_id = client.get_current_trace_id(), client.get_current_observation_id()
    assert (trace_id, span_id) == (http.trace_id, http.id)
    client.flush()

    trace = read_trace(http.trace_id, observations=3)
    assert (trace["name"], trace["userId"], trace["sessionId"]) == ("support-request", user, session)
    assert sorted(trace["tags"]) == ["auth", "support"]
    assert trace["metadata"] == {"plan": "pro", "region": "eu", "limits": {"rpm": 5}}
    assert (trace["input"], trace["output"]) == ({"request": "refund please"}, {"reply": "on it"})


def test_updates_outside_a_span_do_nothing(client: svc.Svc) -> None:
    assert client.update_current_trace(user_id="nobody") is False
    assert client.update_current_span(output="x") is False
    assert client.update_current_generation(model="m") is False
    assert client.get_current_trace_id() is None and client.get_current_observation_id() is None


def test_the_users_own_tracer_provider_stays_in_charge(client: svc.Svc, read_trace: ReadTrace) -> None:
    from opentelemetry import trace as otel_trace

    theirs = TracerProvider()
    seen = InMemorySpanExporter()
    theirs.add_span_processor(SimpleSpanProcessor(seen))
    global_before = otel_trace.get_tracer_provider()

    with theirs.get_tracer("app").start_as_current_span("their-request") as their_span:
        with client.start_as_current_span("our-step") as ours:
            pass
    client.flush()

    assert otel_trace.get_tracer_provider() is global_before
    assert [s.name for s in seen.get_finished_spans()] == ["their-request"]
    step = by_name(read_trace(ours.trace_id, observations=1))["our-step"]
    assert step["parentObservationId"] == format(their_span.get_span_context().span_id, "016x")


def test_shutdown_exports_what_is_queued(svc_service: Any, read_trace: ReadTrace) -> None:
    client = svc.Svc(svc_service.public_key, svc_service.secret_key, svc_service.admin_url,
                     span_export_interval_s=60)
    with client.start_as_current_span("last-words") as span:
        pass
    client.shutdown()
    assert client.exported_spans == 1
    assert by_name(read_trace(span.trace_id, observations=1))["last-words"]["endTime"] is not None


def test_export_failures_never_reach_user_code_and_are_counted(svc_service: Any, dead_url: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    client = svc.Svc(svc_service.public_key, svc_service.secret_key, dead_url, export_timeout_s=0.5)
    svc.set_client(client)
    try:
        @observe
        def work(n: int) -> int:
            with client.start_as_current_generation("inner", model="m"):
                return n * 2

        with caplog.at_level(logging.WARNING, logger="svc"):
            assert work(1) == 2
            client.flush()
            assert work(2) == 4
            client.flush()
    finally:
        svc.set_client(None)
        client.shutdown()
    assert client.dropped_spans == 4 and client.exported_spans == 0
    logged = [r.getMessage() for r in caplog.records if r.name == "svc"]
    assert len(logged) == 1 and "could not export 2 spans" in logged[0] and dead_url in logged[0]


def test_spans_are_flushed_at_process_exit(svc_service: Any, read_trace: ReadTrace) -> None:
    script = """
import svc
@svc.observe
def job(x):
    return x + 1
with svc.get_client().start_as_current_span("exiting") as span:
    job(1)
    print(span.trace_id)
"""
    env = {**os.environ, "SVC_PUBLIC_KEY": svc_service.public_key, "SVC_SECRET_KEY": svc_service.secret_key,
           "SVC_HOST": svc_service.admin_url}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    observations = by_name(read_trace(done.stdout.strip(), observations=2))
    assert observations["job"]["output"] == 2


def test_global_tracer_provider_only_when_asked(svc_service: Any) -> None:
    script = """
from opentelemetry import trace
import svc
client = svc.Svc(set_global_tracer_provider=True)
with client.start_as_current_span("x"):
    pass
print(type(trace.get_tracer_provider()).__name__, trace.get_tracer_provider() is client._tracing._provider)
client.shutdown()
"""
    env = {**os.environ, "SVC_PUBLIC_KEY": svc_service.public_key, "SVC_SECRET_KEY": svc_service.secret_key,
           "SVC_HOST": svc_service.admin_url}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["TracerProvider", "True"]
