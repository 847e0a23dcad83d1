"""ISO 8601 times from the API as timezone-aware datetimes."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or value == "":
        return None
    # Python 3.10's fromisoformat does not take a trailing Z.
    return datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
