"""The TracerProvider of one Svc client: a bounded batch queue and the OTLP/HTTP protobuf exporter to the service's
intake, with Basic auth."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from ..config import Credentials
from .counting_exporter import CountingExporter
from .sized_export import StatusRecordingSession


@dataclass(frozen=True)
class ExportSettings:
    timeout_s: float
    """Per export, retries included (the exporter retries 429, 502, 503, 504 and connection errors)."""
    max_queue_size: int
    """Ended spans waiting for export; past it the oldest are dropped rather than blocking your code."""
    max_batch_size: int
    max_batch_bytes: int
    """Bytes per export request at most, estimated before encoding and compression."""
    interval_s: float
    set_global: bool
    """Also install the provider as OpenTelemetry's global one (off: the user's own provider stays in charge)."""

    def __post_init__(self) -> None:
        # Checked here so that a bad number fails Svc(), not the first @observe call in user code.
        if not 1 <= self.max_batch_size <= self.max_queue_size:
            raise ValueError("span_batch_size must be between 1 and span_queue_size")
        if self.max_batch_bytes < 1:
            raise ValueError("span_batch_bytes must be at least 1")
        if self.interval_s <= 0 or self.timeout_s <= 0:
            raise ValueError("span_export_interval_s and export_timeout_s must be positive")


def intake_url(host: str) -> str:
    return f"{host}/api/public/otel/v1/traces"


def build_provider(credentials: Credentials, settings: ExportSettings) -> tuple[TracerProvider, CountingExporter]:
    token = base64.b64encode(f"{credentials.public_key}:{credentials.secret_key}".encode()).decode()
    endpoint = intake_url(credentials.host)
    session = StatusRecordingSession()
    exporter = CountingExporter(
        OTLPSpanExporter(endpoint=endpoint, headers={"Authorization": f"Basic {token}"}, timeout=settings.timeout_s,
                         compression=Compression.Gzip, session=session),
        endpoint, max_batch_bytes=settings.max_batch_bytes, session=session,
    )
    # shutdown_on_exit: OpenTelemetry flushes the queue and shuts the exporter down at interpreter exit (atexit).
    provider = TracerProvider(resource=Resource.create(), shutdown_on_exit=True)
    provider.add_span_processor(BatchSpanProcessor(
        exporter, max_queue_size=settings.max_queue_size, max_export_batch_size=settings.max_batch_size,
        schedule_delay_millis=settings.interval_s * 1000))
    if settings.set_global:
        trace.set_tracer_provider(provider)
    return provider, exporter
