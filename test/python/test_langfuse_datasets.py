"""Datasets with the Langfuse Python SDK: create a dataset and its items, fetch it, and run an experiment over it with
the SDK's experiment API (`dataset.run_experiment`), whose spans carry the run and item (`langfuse.experiment.*`); the
service turns them into a dataset run whose run items link each item to its trace. Checked through our public API
(runs, run items, traces, evaluator scores) and the stored rows."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langfuse import Evaluation

from compat_testing import Compat

CAPITALS = {"France": "Paris", "Italy": "Rome", "Japan": "Tokyo"}


@pytest.fixture(scope="module")
def experiment(compat: Compat, langfuse: Any) -> dict[str, Any]:
    name = f"capitals-{uuid.uuid4().hex[:8]}"
    dataset = langfuse.create_dataset(name=name, description="capital cities", metadata={"owner": "geo"})
    items = {
        country: langfuse.create_dataset_item(dataset_name=name, input={"country": country}, expected_output=capital,
                                              metadata={"continent": "Asia" if country == "Japan" else "Europe"})
        for country, capital in CAPITALS.items()
    }

    def task(*, item: Any, **_: Any) -> str:
        return "Tokyo" if item.input["country"] == "Japan" else CAPITALS[item.input["country"]].upper()

    def exact(*, output: str, expected_output: str, **_: Any) -> Evaluation:
        return Evaluation(name="exact_match", value=1.0 if output == expected_output else 0.0)

    fetched = langfuse.get_dataset(name)
    result = fetched.run_experiment(name="capitals-eval", run_name="run-1", description="first try", task=task,
                                    evaluators=[exact], metadata={"model": "rules"})
    return {"name": name, "dataset": dataset, "items": items, "fetched": fetched, "result": result}


def test_dataset_and_items_round_trip(compat: Compat, experiment: dict[str, Any]) -> None:
    fetched = experiment["fetched"]
    assert fetched.id == experiment["dataset"].id
    assert fetched.description == "capital cities"
    assert sorted((i.input["country"], i.expected_output) for i in fetched.items) == sorted(CAPITALS.items())

    public = compat.get(f"/v2/datasets/{experiment['name']}")
    assert (public["id"], public["metadata"]) == (experiment["dataset"].id, {"owner": "geo"})
    listed = compat.get("/dataset-items", datasetName=experiment["name"])["data"]
    assert {i["id"] for i in listed} == {i.id for i in experiment["items"].values()}

    rows = compat.rows("SELECT input, expected_output, metadata, status FROM dataset_items WHERE dataset_id = %s", experiment["dataset"].id)
    assert sorted((r["input"]["country"], r["expected_output"], r["metadata"]["continent"], r["status"]) for r in rows) == [
        ("France", "Paris", "Europe", "ACTIVE"), ("Italy", "Rome", "Europe", "ACTIVE"), ("Japan", "Tokyo", "Asia", "ACTIVE"),
    ]


def test_the_experiment_is_a_dataset_run_linking_each_item_to_its_trace(compat: Compat, experiment: dict[str, Any]) -> None:
    result = experiment["result"]
    trace_of_item = {r.item.id: r.trace_id for r in result.item_results}
    assert set(trace_of_item) == {i.id for i in experiment["items"].values()}

    run = compat.get(f"/datasets/{experiment['name']}/runs/run-1")
    assert (run["name"], run["description"], run["datasetId"]) == ("run-1", "first try", experiment["dataset"].id)
    assert run["id"] == result.experiment_id, "the run is the experiment: run-level scores name it as datasetRunId"
    assert {i["datasetItemId"]: i["traceId"] for i in run["datasetRunItems"]} == trace_of_item
    runs = compat.get(f"/datasets/{experiment['name']}/runs")["data"]
    assert [r["name"] for r in runs] == ["run-1"]
    listed = compat.get("/dataset-run-items", datasetId=experiment["dataset"].id, runName="run-1")["data"]
    assert {i["datasetItemId"]: i["traceId"] for i in listed} == trace_of_item

    # Each run item's observation is the item's task span, in its trace.
    for run_item in listed:
        observation = compat.get(f"/observations/{run_item['observationId']}")
        assert (observation["traceId"], observation["name"]) == (run_item["traceId"], "experiment-item-task")

    [run_row] = compat.rows("SELECT id, name, description, metadata FROM dataset_runs WHERE dataset_id = %s", experiment["dataset"].id)
    assert (run_row["id"], run_row["name"], run_row["description"]) == (result.experiment_id, "run-1", "first try")
    assert run_row["metadata"] == {"model": "rules"}
    item_rows = compat.rows("SELECT dataset_item_id, trace_id FROM dataset_run_items WHERE dataset_run_id = %s", run_row["id"])
    assert {r["dataset_item_id"]: r["trace_id"] for r in item_rows} == trace_of_item


def test_experiment_traces_and_evaluator_scores(compat: Compat, experiment: dict[str, Any]) -> None:
    for item_result in experiment["result"].item_results:
        trace = compat.get(f"/traces/{item_result.trace_id}")
        assert trace["input"] == item_result.item.input
        assert trace["output"] == item_result.output
        assert trace["environment"] == "sdk-experiment"
        [score] = [s for s in trace["scores"] if s["name"] == "exact_match"]
        assert score["value"] == (1.0 if item_result.output == item_result.item.expected_output else 0.0)
    rows = compat.rows("SELECT value FROM scores WHERE name = 'exact_match' AND trace_id = ANY(%s)",
                       [r.trace_id for r in experiment["result"].item_results])
    assert sorted(r["value"] for r in rows) == [0.0, 0.0, 1.0], "only Tokyo matches"
