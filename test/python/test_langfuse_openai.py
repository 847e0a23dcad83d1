"""The Langfuse OpenAI integration (`langfuse.openai`, a drop-in wrapper of the real `openai` package) calling our
gateway with the demo key: the gateway answers and traces the call itself, and the wrapper's generation reaches our
intake; both are read back through the public API and the stored rows, and agree on the tokens."""

from __future__ import annotations

from typing import Any

import pytest

from compat_testing import Compat


@pytest.fixture(scope="module")
def wrapped_call(compat: Compat, langfuse: Any) -> dict[str, Any]:
    # Imported here, not at collection: the import patches the openai package for the rest of the process.
    from langfuse.openai import openai

    client = openai.OpenAI(base_url=f"{compat.service.gateway_url}/v1", api_key=compat.service.gateway_key, max_retries=0)
    with langfuse.start_as_current_observation(name="ask-gateway") as span:
        raw = client.chat.completions.with_raw_response.create(
            model="demo", messages=[{"role": "user", "content": "Name three colours."}], temperature=0.1,
        )
        completion = raw.parse()
        trace_id = span.trace_id
    langfuse.flush()
    return {"trace": trace_id, "root": span.id, "completion": completion, "request_id": raw.headers["x-svc-request-id"]}


def test_the_wrapper_records_the_gateway_call_as_a_generation(compat: Compat, wrapped_call: dict[str, Any]) -> None:
    completion = wrapped_call["completion"]
    trace = compat.get(f"/traces/{wrapped_call['trace']}")
    [generation] = [o for o in trace["observations"] if o["type"] == "GENERATION"]
    assert generation["parentObservationId"] == wrapped_call["root"]
    assert generation["name"] == "OpenAI-generation"
    assert generation["model"] == completion.model
    assert generation["modelParameters"]["temperature"] == 0.1
    assert generation["input"] == [{"role": "user", "content": "Name three colours."}]
    assert generation["output"]["content"] == completion.choices[0].message.content
    usage = completion.usage
    assert generation["usageDetails"]["input"] == usage.prompt_tokens
    assert generation["usageDetails"]["output"] == usage.completion_tokens
    assert generation["usageDetails"]["total"] == usage.total_tokens

    [row] = compat.rows("SELECT model, total_tokens FROM observations WHERE id = %s", generation["id"])
    assert (row["model"], row["total_tokens"]) == (completion.model, usage.total_tokens)


def test_the_gateway_traced_the_same_call(compat: Compat, wrapped_call: dict[str, Any]) -> None:
    usage = wrapped_call["completion"].usage
    gateway_trace = compat.eventually(f"/traces/{wrapped_call['request_id']}")
    [served] = [o for o in gateway_trace["observations"] if o["usageDetails"]]
    assert served["usageDetails"]["total"] == usage.total_tokens
    assert gateway_trace["totalCost"] > 0, "the demo deployment has a price"
    [row] = compat.rows("SELECT source, model_group FROM traces WHERE id = %s", wrapped_call["request_id"])
    assert row == {"source": "gateway", "model_group": "demo"}
