package dev.svc.sdk;

import java.time.Instant;

/** The link between a dataset item, a run and the trace (and optionally the observation) that ran it. */
public record DatasetRunItem(String id, String datasetRunId, String datasetRunName, String datasetItemId, String traceId,
        String observationId, Instant createdAt, Instant updatedAt) {}
