"""Datasets, their items, and run items linking a trace to a dataset run (/api/public/v2/datasets, /dataset-items,
/dataset-run-items)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from .rest import RestClient, segment
from .timestamps import parse_time

_PAGE_LIMIT = 100


@dataclass(frozen=True)
class Dataset:
    id: str
    name: str
    description: str | None
    metadata: Any
    input_schema: Any
    expected_output_schema: Any
    created_at: datetime | None
    updated_at: datetime | None


@dataclass(frozen=True)
class DatasetItem:
    id: str
    dataset_id: str
    dataset_name: str
    status: Literal["ACTIVE", "ARCHIVED"]
    input: Any
    expected_output: Any
    metadata: Any
    source_trace_id: str | None
    source_observation_id: str | None
    created_at: datetime | None
    updated_at: datetime | None


@dataclass(frozen=True)
class DatasetRunItem:
    id: str
    dataset_run_id: str
    dataset_run_name: str
    dataset_item_id: str
    trace_id: str
    observation_id: str | None
    created_at: datetime | None


@dataclass(frozen=True)
class DatasetRun:
    id: str
    name: str
    description: str | None
    metadata: Any
    dataset_id: str
    dataset_name: str
    created_at: datetime | None
    run_items: list[DatasetRunItem] = field(default_factory=list)


def _dataset(b: Mapping[str, Any]) -> Dataset:
    return Dataset(id=b["id"], name=b["name"], description=b.get("description"), metadata=b.get("metadata"),
                   input_schema=b.get("inputSchema"), expected_output_schema=b.get("expectedOutputSchema"),
                   created_at=parse_time(b.get("createdAt")), updated_at=parse_time(b.get("updatedAt")))


def _item(b: Mapping[str, Any]) -> DatasetItem:
    return DatasetItem(id=b["id"], dataset_id=b["datasetId"], dataset_name=b["datasetName"], status=b["status"],
                       input=b.get("input"), expected_output=b.get("expectedOutput"), metadata=b.get("metadata"),
                       source_trace_id=b.get("sourceTraceId"), source_observation_id=b.get("sourceObservationId"),
                       created_at=parse_time(b.get("createdAt")), updated_at=parse_time(b.get("updatedAt")))


def _run_item(b: Mapping[str, Any]) -> DatasetRunItem:
    return DatasetRunItem(id=b["id"], dataset_run_id=b["datasetRunId"], dataset_run_name=b["datasetRunName"],
                          dataset_item_id=b["datasetItemId"], trace_id=b["traceId"],
                          observation_id=b.get("observationId"), created_at=parse_time(b.get("createdAt")))


def _without_none(body: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}


class DatasetsApi:
    def __init__(self, rest: RestClient) -> None:
        self._rest = rest

    def create(self, name: str, *, description: str | None = None, metadata: Any = None,
               input_schema: Any = None, expected_output_schema: Any = None) -> Dataset:
        body = _without_none({"name": name, "description": description, "metadata": metadata,
                              "inputSchema": input_schema, "expectedOutputSchema": expected_output_schema})
        # Upsert by name: safe to retry.
        return _dataset(self._rest.request("POST", "/v2/datasets", json=body))

    def get(self, name: str) -> Dataset:
        return _dataset(self._rest.request("GET", f"/v2/datasets/{segment(name)}"))

    def create_item(self, dataset_name: str, *, input: Any = None, expected_output: Any = None, metadata: Any = None,
                    id: str | None = None, source_trace_id: str | None = None,
                    source_observation_id: str | None = None,
                    status: Literal["ACTIVE", "ARCHIVED"] | None = None) -> DatasetItem:
        # The id is chosen here so that a retry upserts the same item instead of adding a second one.
        body = _without_none({"datasetName": dataset_name, "id": id or str(uuid.uuid4()), "input": input,
                              "expectedOutput": expected_output, "metadata": metadata,
                              "sourceTraceId": source_trace_id, "sourceObservationId": source_observation_id,
                              "status": status})
        return _item(self._rest.request("POST", "/dataset-items", json=body))

    def list_items(self, dataset_name: str, *, source_trace_id: str | None = None,
                   source_observation_id: str | None = None) -> list[DatasetItem]:
        items: list[DatasetItem] = []
        page = 1
        while True:
            answer = self._rest.request("GET", "/dataset-items", params={
                "datasetName": dataset_name, "sourceTraceId": source_trace_id,
                "sourceObservationId": source_observation_id, "page": page, "limit": _PAGE_LIMIT})
            items.extend(_item(b) for b in answer["data"])
            if page >= int(answer["meta"]["totalPages"]):
                return items
            page += 1

    def create_run_item(self, run_name: str, dataset_item_id: str, *, trace_id: str | None = None,
                        observation_id: str | None = None, run_description: str | None = None,
                        metadata: Any = None) -> DatasetRunItem:
        if trace_id is None and observation_id is None:
            raise ValueError("create_dataset_run_item needs trace_id or observation_id")
        body = _without_none({"runName": run_name, "datasetItemId": dataset_item_id, "traceId": trace_id,
                              "observationId": observation_id, "runDescription": run_description,
                              "metadata": metadata})
        # Every POST adds a run item, so a request the server may have processed is not repeated.
        return _run_item(self._rest.request("POST", "/dataset-run-items", json=body, idempotent=False))

    def get_run(self, dataset_name: str, run_name: str) -> DatasetRun:
        b = self._rest.request("GET", f"/datasets/{segment(dataset_name)}/runs/{segment(run_name)}")
        return DatasetRun(id=b["id"], name=b["name"], description=b.get("description"), metadata=b.get("metadata"),
                          dataset_id=b["datasetId"], dataset_name=b["datasetName"],
                          created_at=parse_time(b.get("createdAt")),
                          run_items=[_run_item(r) for r in b.get("datasetRunItems") or []])
