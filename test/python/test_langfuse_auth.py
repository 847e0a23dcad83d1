"""The Langfuse Python SDK's credential check (`auth_check()`: GET /api/public/projects), configured by constructor
arguments or, in a program of its own, by its environment variables alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from compat_testing import Compat

# A program that configures the SDK from the environment only. It runs apart: the SDK keeps one client per public key
# in a process, and a second client there would make `@observe` in the other tests skip tracing.
AUTH_CHECK = """
import json
from langfuse import Langfuse
from langfuse.api.core.api_error import ApiError
try:
    print(json.dumps({"ok": Langfuse(tracing_enabled=False).auth_check()}))
except ApiError as e:
    print(json.dumps({"status": e.status_code, "body": e.body}))
"""


def auth_check_from_env(compat: Compat, public_key: str, secret_key: str) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANGFUSE_")}
    env.update(LANGFUSE_HOST=compat.service.admin_url, LANGFUSE_PUBLIC_KEY=public_key, LANGFUSE_SECRET_KEY=secret_key)
    done = subprocess.run([sys.executable, "-c", AUTH_CHECK], env=env, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_auth_check_with_the_project_key_pair(compat: Compat, langfuse: Any) -> None:
    assert langfuse.auth_check() is True
    [project] = compat.get("/projects")["data"]
    [row] = compat.rows("SELECT id, name FROM projects WHERE id = %s", project["id"])
    assert row["name"] == project["name"]


def test_auth_check_configured_from_the_environment(compat: Compat) -> None:
    assert auth_check_from_env(compat, compat.service.public_key, compat.service.secret_key) == {"ok": True}


def test_auth_check_refuses_wrong_keys(compat: Compat) -> None:
    refused = {"status": 401, "body": {"message": "Invalid credentials. Confirm that you've configured the correct host.", "error": "UnauthorizedError"}}
    assert auth_check_from_env(compat, compat.service.public_key, "sk-svc-wrong") == refused
    assert auth_check_from_env(compat, "pk-svc-unknown", "sk-svc-unknown") == refused
