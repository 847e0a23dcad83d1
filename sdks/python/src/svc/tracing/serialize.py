"""Any Python value as JSON text for span attributes: what a user passes or returns must never fail the export."""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping, Set
from datetime import date, datetime, time
from typing import Any


def _plain(o: Any) -> Any:
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return dataclasses.asdict(o)
    model_dump = getattr(o, "model_dump", None)  # pydantic v2 models (openai responses among them)
    if callable(model_dump):
        return model_dump(mode="json")
    if isinstance(o, (datetime, date, time)):
        return o.isoformat()
    if isinstance(o, enum.Enum):
        return o.value
    if isinstance(o, Mapping):
        return {str(k): v for k, v in o.items()}
    if isinstance(o, (Set, frozenset)):
        return list(o)
    if isinstance(o, (bytes, bytearray)):
        return f"<{len(o)} bytes>"
    return repr(o)


def to_json(value: Any) -> str:
    """JSON text of `value`: dataclasses, pydantic models, dates, enums, sets handled; anything else as its repr."""
    try:
        return json.dumps(value, default=_plain, ensure_ascii=False)
    except Exception:  # noqa: BLE001 - user objects may raise anything from model_dump or __repr__
        # Circular references, a model_dump that fails, keys json cannot take: the repr is still worth keeping.
        try:
            return json.dumps(repr(value), ensure_ascii=False)
        except Exception:  # noqa: BLE001
            return json.dumps(f"<unserializable {type(value).__name__}>")


def to_plain(value: Any) -> Any:
    """`value` as plain JSON data (dicts, lists, strings, numbers, booleans, None)."""
    return json.loads(to_json(value))
