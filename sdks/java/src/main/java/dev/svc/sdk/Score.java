package dev.svc.sdk;

import java.time.Instant;

/**
 * A stored score. {@code value} is the number (1 or 0 for BOOLEAN; a CATEGORICAL score with a config reads its
 * category's number, without one 0); {@code stringValue} is the category, {@code True}/{@code False}, or the text
 * (null for NUMERIC).
 */
public record Score(String id, String projectId, String traceId, String observationId, String sessionId, String datasetRunId,
        String name, ScoreDataType dataType, double value, String stringValue, String source, String comment, Object metadata,
        String configId, String queueId, String environment, Instant timestamp, Instant createdAt, Instant updatedAt) {}
