"""The compatibility suite's service: one svc on a PostgreSQL database of its own (created here, dropped at the end),
so that each test can check what a client nobody here wrote sees through our public API *and* what was stored.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from langfuse import Langfuse
from opentelemetry.sdk.trace import TracerProvider
from psycopg import sql
from psycopg.rows import dict_row

from compat_testing import Compat
from svc_service import start_service

ADMIN_URL = os.environ.get("SVC_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def _database_url(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(scope="session")
def compat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Compat]:
    name = f"svc_test_{secrets.token_hex(6)}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    service = None
    try:
        service = start_service(tmp_path_factory.mktemp("svc-pg"), postgres_url=_database_url(name))
        with psycopg.connect(_database_url(name), autocommit=True, row_factory=dict_row) as db, httpx.Client(
            base_url=f"{service.admin_url}/api/public", auth=(service.public_key, service.secret_key), timeout=15
        ) as api:
            yield Compat(service=service, api=api, db=db)
    finally:
        if service is not None:
            service.stop()
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def langfuse(compat: Compat) -> Iterator[Langfuse]:
    """The real Langfuse Python SDK, pointed at the service's admin listener with the project key pair."""
    # A tracer provider of its own (a documented SDK option): the global one may belong to another suite of the run.
    client = Langfuse(
        public_key=compat.service.public_key, secret_key=compat.service.secret_key, base_url=compat.service.admin_url,
        tracer_provider=TracerProvider(),
    )
    yield client
    client.shutdown()
