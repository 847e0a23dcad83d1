"""Scores over /api/public/scores: numeric, categorical and boolean, on a trace, an observation or a session."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .rest import RestClient, segment
from .timestamps import parse_time

ScoreDataType = Literal["NUMERIC", "CATEGORICAL", "BOOLEAN", "TEXT"]


@dataclass(frozen=True)
class Score:
    id: str
    name: str
    value: float
    """The number: the value of a NUMERIC score, 1 or 0 for BOOLEAN, the category's number with a config."""
    string_value: str | None
    """The label of a CATEGORICAL or TEXT score, `True`/`False` for BOOLEAN; None for NUMERIC."""
    data_type: ScoreDataType
    trace_id: str | None
    observation_id: str | None
    session_id: str | None
    config_id: str | None
    comment: str | None
    metadata: Any
    source: str
    timestamp: datetime | None


def _score(b: Mapping[str, Any]) -> Score:
    return Score(id=b["id"], name=b["name"], value=float(b["value"]), string_value=b.get("stringValue"),
                 data_type=b["dataType"], trace_id=b.get("traceId"), observation_id=b.get("observationId"),
                 session_id=b.get("sessionId"), config_id=b.get("configId"), comment=b.get("comment"),
                 metadata=b.get("metadata"), source=b["source"], timestamp=parse_time(b.get("timestamp")))


class ScoresApi:
    def __init__(self, rest: RestClient) -> None:
        self._rest = rest

    def create(self, name: str, value: float | str | bool, *, trace_id: str | None = None,
               observation_id: str | None = None, session_id: str | None = None,
               data_type: ScoreDataType | None = None, config_id: str | None = None, comment: str | None = None,
               metadata: Any = None, id: str | None = None) -> str:
        if (trace_id is None) == (session_id is None):
            raise ValueError("a score needs exactly one target: trace_id (with an optional observation_id) or session_id")
        if observation_id is not None and trace_id is None:
            raise ValueError("observation_id needs the trace_id of the observation's trace")
        if isinstance(value, bool):
            # The API takes a boolean as the number 1 or 0.
            value, data_type = (1 if value else 0), data_type or "BOOLEAN"
        body = {k: v for k, v in {
            # The id is chosen here so that a retry updates the same score instead of adding a second one.
            "id": id or str(uuid.uuid4()), "name": name, "value": value, "dataType": data_type,
            "traceId": trace_id, "observationId": observation_id, "sessionId": session_id,
            "configId": config_id, "comment": comment, "metadata": metadata,
        }.items() if v is not None}
        return str(self._rest.request("POST", "/scores", json=body)["id"])

    def get(self, score_id: str) -> Score:
        return _score(self._rest.request("GET", f"/v2/scores/{segment(score_id)}"))
