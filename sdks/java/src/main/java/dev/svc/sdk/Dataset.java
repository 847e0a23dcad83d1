package dev.svc.sdk;

import java.time.Instant;

/** A dataset. {@code metadata} and the schemas are plain JSON values (Map, List, String, Number, Boolean or null). */
public record Dataset(String id, String name, String description, Object metadata, Object inputSchema, Object expectedOutputSchema,
        String projectId, Instant createdAt, Instant updatedAt) {}
