"""Datasets, items and run items against the real service."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import svc


def test_create_and_get_a_dataset(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("evals/qa")
    created = client.create_dataset(name, description="QA pairs", metadata={"owner": "search"},
                                    input_schema={"type": "object"})
    fetched = client.get_dataset(name)
    assert fetched.id == created.id
    assert (fetched.name, fetched.description, fetched.metadata) == (name, "QA pairs", {"owner": "search"})
    assert fetched.input_schema == {"type": "object"}
    assert fetched.created_at is not None and fetched.created_at.tzinfo is not None


def test_unknown_dataset_is_a_typed_404(client: svc.Svc, unique: Callable[[str], str]) -> None:
    with pytest.raises(svc.NotFoundError) as caught:
        client.get_dataset(unique("nope"))
    assert caught.value.message == "Dataset not found"


def test_items_are_created_listed_and_upserted_by_id(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("items")
    dataset = client.create_dataset(name)
    first = client.create_dataset_item(name, input={"q": "2+2"}, expected_output="4", metadata={"level": 1})
    second = client.create_dataset_item(name, input={"q": "3+3"}, expected_output="6", id=unique("item"))
    assert first.dataset_id == dataset.id and first.dataset_name == name and first.status == "ACTIVE"

    client.create_dataset_item(name, input={"q": "3*3"}, expected_output="9", id=second.id)
    items = {i.id: i for i in client.list_dataset_items(name)}
    assert set(items) == {first.id, second.id}
    assert (items[first.id].input, items[first.id].expected_output, items[first.id].metadata) == (
        {"q": "2+2"}, "4", {"level": 1})
    assert (items[second.id].input, items[second.id].expected_output) == ({"q": "3*3"}, "9")


def test_list_items_pages_through_every_item(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("many")
    client.create_dataset(name)
    ids = {client.create_dataset_item(name, input=i).id for i in range(105)}
    assert {i.id for i in client.list_dataset_items(name)} == ids


def test_items_filtered_by_source_trace(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("sourced")
    client.create_dataset(name)
    kept = client.create_dataset_item(name, input="from a trace", source_trace_id="a" * 32)
    client.create_dataset_item(name, input="other")
    assert [i.id for i in client.list_dataset_items(name, source_trace_id="a" * 32)] == [kept.id]


def test_a_run_item_links_a_trace_to_the_run(client: svc.Svc, unique: Callable[[str], str]) -> None:
    name = unique("runs")
    client.create_dataset(name)
    item = client.create_dataset_item(name, input={"q": "capital of France"}, expected_output="Paris")
    with client.start_as_current_span("answer", input=item.input) as span:
        span.update(output="Paris")
    client.flush()

    run_item = client.create_dataset_run_item("baseline", item.id, trace_id=span.trace_id,
                                              run_description="first model", metadata={"model": "demo"})
    assert (run_item.dataset_item_id, run_item.trace_id, run_item.dataset_run_name) == (item.id, span.trace_id, "baseline")

    observed = client.create_dataset_run_item("baseline", item.id, trace_id=span.trace_id, observation_id=span.id)
    assert observed.observation_id == span.id

    run = client.get_dataset_run(name, "baseline")
    assert (run.name, run.description, run.metadata, run.dataset_name) == ("baseline", "first model", {"model": "demo"}, name)
    assert {(r.trace_id, r.observation_id) for r in run.run_items} == {(span.trace_id, None), (span.trace_id, span.id)}


def test_a_run_item_needs_a_trace_or_observation(client: svc.Svc) -> None:
    with pytest.raises(ValueError, match="trace_id or observation_id"):
        client.create_dataset_run_item("run", "item")
