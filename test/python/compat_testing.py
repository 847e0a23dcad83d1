"""What the compatibility suite's tests share: the service on its own PostgreSQL database, read through the public API
and directly (conftest.py makes it). A module of its own, not conftest.py, so that the tests can import it when the
SDK suite's conftest.py is loaded in the same run."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg

from svc_service import Service


@dataclass
class Compat:
    """The service of the suite (on PostgreSQL) and two ways to read it."""

    service: Service
    api: httpx.Client
    """The public API (`{admin}/api/public`) with the project key pair as Basic auth."""
    db: psycopg.Connection[dict[str, Any]]
    """The service's database, autocommit, rows as dicts."""

    def rows(self, query: str, *params: Any) -> list[dict[str, Any]]:
        with self.db.cursor() as cur:
            cur.execute(query, params)
            return cur.fetchall()

    def get(self, path: str, **params: Any) -> Any:
        response = self.api.get(path, params=params)
        assert response.status_code == 200, f"GET {path}: {response.status_code} {response.text}"
        return response.json()

    def eventually(self, path: str, timeout_s: float = 15.0) -> Any:
        """GET of something the service writes after answering (the gateway's own traces), once it is there."""
        deadline = time.monotonic() + timeout_s
        while (response := self.api.get(path)).status_code == 404 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert response.status_code == 200, f"GET {path}: {response.status_code} {response.text}"
        return response.json()
