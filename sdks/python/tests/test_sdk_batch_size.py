"""The span export's request size: batches cut to `span_batch_bytes`, a batch refused with 413 halved and sent again,
and a single span refused as too large dropped (counted, logged) without its batch. Against a local OTLP intake that
refuses bodies over a size, as a proxy or an older server does; a real service storing a large trace is in
test_sdk_large_trace.py."""

from __future__ import annotations

import gzip
import logging
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

import svc


class LimitedIntake:
    """Answers 413 to bodies over `limit` bytes once gzip is undone; records the span names of each accepted body."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.accepted: list[list[str]] = []
        self.refused: list[int] = []
        intake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = gzip.decompress(self.rfile.read(int(self.headers["content-length"])))
                if len(body) > intake.limit:
                    intake.refused.append(len(body))
                    self.send_response(413)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest.FromString(body)
                intake.accepted.append([span.name for rs in request.resource_spans for ss in rs.scope_spans
                                        for span in ss.spans])
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def intake() -> Iterator[LimitedIntake]:
    served = LimitedIntake(300_000)
    yield served
    served.server.shutdown()


def text(size: int) -> str:
    """Text that compresses about as much as real content (hex: 2:1), so sizes on the wire stay meaningful."""
    return os.urandom(size // 2).hex()


def traced(client: svc.Svc, spans: list[tuple[str, int]]) -> None:
    for name, size in spans:
        with client.start_as_current_span(name, input=text(size)):
            pass
    client.flush()


def names(count: int, prefix: str = "s") -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


def test_a_batch_refused_with_413_is_halved_until_each_part_is_taken(intake: LimitedIntake) -> None:
    client = svc.Svc("pk-test", "sk-test", intake.url)
    traced(client, [(name, 30_000) for name in names(40)])
    assert intake.refused, "the 1.2 MB batch was refused first"
    assert sorted(n for part in intake.accepted for n in part) == sorted(names(40))
    assert client.dropped_spans == 0
    client.shutdown()


def test_span_batch_bytes_cuts_batches_before_they_are_sent(intake: LimitedIntake) -> None:
    client = svc.Svc("pk-test", "sk-test", intake.url, span_batch_bytes=100_000)
    traced(client, [(name, 30_000) for name in names(40)])
    assert intake.refused == []
    assert sorted(n for part in intake.accepted for n in part) == sorted(names(40))
    assert len(intake.accepted) >= 13
    client.shutdown()
    with pytest.raises(ValueError, match="span_batch_bytes"):
        svc.Svc("pk-test", "sk-test", intake.url, span_batch_bytes=0)


def test_a_single_span_too_large_is_dropped_and_logged_and_its_batch_delivered(intake: LimitedIntake,
                                                                              caplog: pytest.LogCaptureFixture) -> None:
    client = svc.Svc("pk-test", "sk-test", intake.url)
    with caplog.at_level(logging.ERROR, logger="svc"):
        traced(client, [*((n, 1_000) for n in names(5, "before")), ("huge", 500_000),
                        *((n, 1_000) for n in names(5, "after"))])
    assert sorted(n for part in intake.accepted for n in part) == sorted(names(5, "after") + names(5, "before"))
    assert client.dropped_spans == 1
    assert any("'huge'" in r.getMessage() and "too large (413)" in r.getMessage() for r in caplog.records)
    client.shutdown()
