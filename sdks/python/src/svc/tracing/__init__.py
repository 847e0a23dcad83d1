"""OpenTelemetry tracing to the service\x27s intake."""
