package dev.svc.sdk;

import java.time.Instant;

/** A dataset item; {@code status} is {@code ACTIVE} or {@code ARCHIVED}. Values are plain JSON values. */
public record DatasetItem(String id, String status, Object input, Object expectedOutput, Object metadata, String sourceTraceId,
        String sourceObservationId, String datasetId, String datasetName, Instant createdAt, Instant updatedAt) {}
