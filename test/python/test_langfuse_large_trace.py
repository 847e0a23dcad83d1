"""One trace of 200 spans of 30 KB each through the real Langfuse Python SDK: its exporter sends the batch as one
request (6 MB of protobuf, about 3 MB gzipped), which the OTel intake takes whole: all 201 observations stored."""

from __future__ import annotations

import os
from typing import Any

from compat_testing import Compat


def test_a_trace_of_200_spans_of_30_kb_is_stored_whole(compat: Compat, langfuse: Any) -> None:
    with langfuse.start_as_current_observation(name="agent-run", input="a long task") as root:
        for i in range(200):
            with root.start_as_current_observation(name=f"step-{i}", input=os.urandom(15_000).hex()):
                pass
        trace_id = root.trace_id
    langfuse.flush()
    trace = compat.get(f"/traces/{trace_id}")
    assert len(trace["observations"]) == 201
    steps = [o for o in trace["observations"] if o["name"].startswith("step-")]
    assert len(steps) == 200 and all(len(o["input"]) == 30_000 for o in steps)
