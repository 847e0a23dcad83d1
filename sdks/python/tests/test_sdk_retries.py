"""Retries, backoff, retry-after and typed errors, against a small real HTTP server that answers from a script."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import svc
from svc import config as svc_config

PROMPT = {"id": "p1", "name": "greeting", "version": 3, "type": "text", "prompt": "Hi", "config": {}, "labels": [],
          "tags": [], "commitMessage": None}


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang_up: bool = False
    """Close the connection without answering."""
    raw: bytes | None = None
    """A body sent as it is instead of `body` as JSON."""


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    at: float


class ScriptedServer:
    """Answers each request with the next scripted answer (the last one repeats) and records what it received."""

    def __init__(self) -> None:
        self.script: list[Answer] = []
        self.received: list[Received] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                server.received.append(Received(self.command, self.path, dict(self.headers), time.monotonic()))
                scripted = server.script[min(len(server.received), len(server.script)) - 1]
                if scripted.hang_up:
                    self.close_connection = True
                    return
                payload = scripted.raw if scripted.raw is not None else json.dumps(scripted.body).encode()
                self.send_response(scripted.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for k, v in scripted.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = answer

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer()
    yield s
    s.close()


def client_of(server: ScriptedServer, **options: Any) -> svc.Svc:
    return svc.Svc("pk-svc-test", "sk-svc-test", server.url, **options)


def test_429_is_retried_after_the_retry_after_delay(server: ScriptedServer) -> None:
    server.script = [Answer(429, {"message": "slow down"}, {"retry-after": "1"}), Answer(200, {"data": []})]
    assert client_of(server).auth_check() is True
    assert len(server.received) == 2
    assert server.received[1].at - server.received[0].at >= 1.0


def test_5xx_is_retried_with_backoff_then_succeeds(server: ScriptedServer) -> None:
    server.script = [Answer(503, {"message": "busy"}), Answer(502, {"message": "bad gateway"}), Answer(200, PROMPT)]
    prompt = client_of(server).get_prompt("greeting")
    assert (prompt.name, prompt.version) == ("greeting", 3)
    assert [r.path for r in server.received] == ["/api/public/v2/prompts/greeting?label=production"] * 3


def test_5xx_after_the_retries_is_a_server_error_with_the_message(server: ScriptedServer) -> None:
    server.script = [Answer(500, {"message": "Internal error, id abc", "error": "InternalServerError"})]
    with pytest.raises(svc.ServerError) as caught:
        client_of(server, max_retries=2).get_dataset("d")
    assert (caught.value.status, caught.value.message, caught.value.error) == (
        500, "Internal error, id abc", "InternalServerError")
    assert len(server.received) == 3


def test_a_create_that_may_have_been_processed_is_not_repeated(server: ScriptedServer) -> None:
    server.script = [Answer(500, {"message": "boom"})]
    with pytest.raises(svc.ServerError):
        client_of(server).create_prompt("greeting", "Hi")
    assert len(server.received) == 1


def test_a_create_refused_with_429_is_repeated(server: ScriptedServer) -> None:
    server.script = [Answer(429, {"message": "slow down"}, {"retry-after": "0"}), Answer(201, PROMPT)]
    assert client_of(server).create_prompt("greeting", "Hi").version == 3
    assert [r.method for r in server.received] == ["POST", "POST"]


def test_a_retry_after_beyond_the_limit_is_raised_at_once(server: ScriptedServer) -> None:
    server.script = [Answer(429, {"message": "Rate limit exceeded"}, {"retry-after": "120"})]
    with pytest.raises(svc.RateLimitError) as caught:
        client_of(server, max_retry_wait_s=5).auth_check()
    assert (caught.value.status, caught.value.retry_after, caught.value.message) == (429, 120.0, "Rate limit exceeded")
    assert len(server.received) == 1


def test_a_4xx_is_not_retried(server: ScriptedServer) -> None:
    server.script = [Answer(400, {"message": "Invalid request data", "error": [{"path": ["name"], "message": "too long"}]})]
    with pytest.raises(svc.ApiError) as caught:
        client_of(server).get_dataset("d")
    assert type(caught.value) is svc.ApiError
    assert caught.value.message == "Invalid request data: name: too long"
    assert len(server.received) == 1


def test_an_answer_that_is_not_json_is_an_api_error(server: ScriptedServer) -> None:
    server.script = [Answer(200, raw=b"<html>a web page</html>")]
    with pytest.raises(svc.ApiError) as caught:
        client_of(server).auth_check()
    assert caught.value.status == 200 and "SVC_HOST" in caught.value.message
    assert caught.value.body == "<html>a web page</html>"


@pytest.mark.parametrize(("status", "kind"), [
    (400, svc.ApiError), (401, svc.AuthenticationError), (403, svc.ForbiddenError), (404, svc.NotFoundError),
    (409, svc.ApiError), (413, svc.ApiError), (501, svc.ServerError),
])
def test_statuses_map_to_typed_errors(server: ScriptedServer, status: int, kind: type[svc.ApiError]) -> None:
    server.script = [Answer(status, {"message": f"answer {status}", "error": "SomeError"})]
    with pytest.raises(svc.ApiError) as caught:
        client_of(server).get_score("s1")
    assert type(caught.value) is kind
    assert (caught.value.status, caught.value.message, caught.value.error) == (status, f"answer {status}", "SomeError")
    assert len(server.received) == 1


def test_a_dropped_connection_is_retried_for_reads(server: ScriptedServer) -> None:
    server.script = [Answer(0, hang_up=True), Answer(200, {"data": []})]
    assert client_of(server).auth_check() is True
    assert len(server.received) == 2


def test_a_dropped_connection_ends_a_create(server: ScriptedServer) -> None:
    server.script = [Answer(0, hang_up=True)]
    with pytest.raises(svc.UnreachableError):
        client_of(server).create_dataset_run_item("run", "item", trace_id="f" * 32)
    assert len(server.received) == 1


def test_requests_carry_basic_auth_and_the_sdk_version(server: ScriptedServer) -> None:
    server.script = [Answer(200, {"data": []})]
    client_of(server).auth_check()
    headers = {k.lower(): v for k, v in server.received[0].headers.items()}
    assert headers["authorization"] == "Basic " + base64.b64encode(b"pk-svc-test:sk-svc-test").decode()
    assert headers["user-agent"] == f"svc-sdk-python/{svc.__version__}"


@pytest.fixture
def silent_url() -> Iterator[tuple[str, list[socket.socket]]]:
    """A server that accepts connections, reads nothing and never answers; the list holds what it accepted."""
    accepted: list[socket.socket] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    listener.close()
    for conn in accepted:
        conn.close()


def test_a_silent_server_times_out_once_after_svc_timeout(silent_url: tuple[str, list[socket.socket]],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    url, accepted = silent_url
    monkeypatch.setenv("SVC_TIMEOUT", "0.3")
    client = svc.Svc("pk-svc-test", "sk-svc-test", url)  # max_retries 3: a timeout is still not retried
    with pytest.raises(svc.UnreachableError) as caught:
        client.auth_check()
    assert "ReadTimeout" in str(caught.value)
    assert len(accepted) == 1


def test_the_timeout_argument_wins_over_svc_timeout(silent_url: tuple[str, list[socket.socket]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = silent_url
    monkeypatch.setenv("SVC_TIMEOUT", "600")
    started = time.monotonic()
    with pytest.raises(svc.UnreachableError):
        svc.Svc("pk-svc-test", "sk-svc-test", url, timeout_s=0.3).get_prompt("greeting")
    assert time.monotonic() - started < 60


def test_the_timeout_is_5_s_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SVC_TIMEOUT", raising=False)
    assert svc_config.timeout_seconds(None) == 5.0
    monkeypatch.setenv("SVC_TIMEOUT", "2.5")
    assert svc_config.timeout_seconds(None) == 2.5
    monkeypatch.setenv("SVC_TIMEOUT", "soon")
    with pytest.raises(svc.ConfigError) as caught:
        svc_config.timeout_seconds(None)
    assert caught.value.variable == "SVC_TIMEOUT"
