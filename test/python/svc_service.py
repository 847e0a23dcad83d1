"""The real svc service for Python tests: `svc start` from this repository (its TypeScript sources on the project's
pinned Node), on free ports, with a temporary embedded store, and the key pair and gateway key it prints at first
start. Loaded as a pytest plugin (`-p svc_service` with this folder on the path) by the SDK and compatibility suites.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "node_modules" / ".bin" / "node"
CLI = ROOT / "src" / "runtime" / "cli.ts"

_LISTENING = re.compile(r"svc gateway listening on \S+ \([^)]*\): (\S+)/v1 \(role all\)\nsvc admin listening on \S+ \([^)]*\): (\S+)")
_PUBLIC = re.compile(r"public key: (\S+)")
_SECRET = re.compile(r"secret key: (\S+)")
_GATEWAY_KEY = re.compile(r"Generated gateway key for 'demo' \(shown once; keep it\): (\S+)")


@dataclass
class Service:
    gateway_url: str
    """The gateway's base URL, without `/v1`."""
    admin_url: str
    """The admin listener: REST `/v1`, `/api/public`, the dashboard."""
    public_key: str
    secret_key: str
    gateway_key: str
    process: subprocess.Popen[str]
    data_dir: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _config(data_dir: Path, postgres_url: str | None) -> str:
    text = (ROOT / "gateway.yaml").read_text()
    text = text.replace("host: 0.0.0.0, port: 8080, admin_port: 8081", "host: 127.0.0.1, port: 0, admin_port: 0")
    text = text.replace("data_dir: ./data", f"data_dir: {data_dir}")
    if postgres_url is not None:
        text = text.replace('postgres_url: "${DATABASE_URL:-}"', f'postgres_url: "{postgres_url}"')
    if "port: 0, admin_port: 0" not in text or str(data_dir) not in text or (postgres_url and postgres_url not in text):
        raise RuntimeError("gateway.yaml changed shape: update test/python/svc_service.py")
    return text


def start_service(workdir: Path | None = None, timeout_s: float = 60.0, postgres_url: str | None = None) -> Service:
    """Starts a fresh service; the caller stops it (`Service.stop`). With `postgres_url` (an empty database) the store
    is that PostgreSQL database (`store.postgres_url`) instead of the embedded one, so tests can read its rows."""
    base = Path(workdir or tempfile.mkdtemp(prefix="svc-py-"))
    data_dir = base / "data"
    config = base / "gateway.yaml"
    config.write_text(_config(data_dir, postgres_url))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), "NODE_OPTIONS": ""}
    process = subprocess.Popen(
        [str(NODE), str(CLI), "start", "--config", str(config)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    stdout: list[str] = []
    stderr: list[str] = []
    listening = threading.Event()

    def read_stdout() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            stdout.append(line)
            if _LISTENING.search("".join(stdout)):
                listening.set()

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            stderr.append(line)

    threading.Thread(target=read_stdout, daemon=True).start()
    threading.Thread(target=read_stderr, daemon=True).start()
    deadline = time.monotonic() + timeout_s
    while not listening.wait(0.1):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"svc start did not listen:\n{''.join(stdout)}\n{''.join(stderr)[-4000:]}")
    out = "".join(stdout)

    def grab(pattern: re.Pattern[str]) -> str:
        m = pattern.search(out)
        if m is None:
            process.kill()
            raise RuntimeError(f"svc start did not print {pattern.pattern}:\n{out}")
        return m.group(1)

    urls = _LISTENING.search(out)
    assert urls is not None
    return Service(
        gateway_url=urls.group(1), admin_url=urls.group(2), public_key=grab(_PUBLIC), secret_key=grab(_SECRET),
        gateway_key=grab(_GATEWAY_KEY), process=process, data_dir=data_dir,
    )


@pytest.fixture(scope="session")
def svc_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """One service for the whole session."""
    service = start_service(tmp_path_factory.mktemp("svc"))
    yield service
    service.stop()
