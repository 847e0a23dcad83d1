"""One trace of 200 spans of 30 KB each (6 MB of text, about 3 MB gzipped) through the SDK into the real service: all
201 observations stored. The SDK sends it in requests of at most 4 MiB; the intake would also take it whole."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import svc


def test_a_trace_of_200_spans_of_30_kb_is_stored_whole(client: svc.Svc, read_trace: Callable[..., Any]) -> None:
    with client.start_as_current_span("agent-run", input="a long task") as root:
        for i in range(200):
            with client.start_as_current_span(f"step-{i}", input=os.urandom(15_000).hex()):
                pass
    client.flush()
    assert client.dropped_spans == 0
    trace = read_trace(root.trace_id, observations=201)
    assert len(trace["observations"]) == 201
    steps = [o for o in trace["observations"] if o["name"].startswith("step-")]
    assert len(steps) == 200 and all(len(o["input"]) == 30_000 for o in steps)
