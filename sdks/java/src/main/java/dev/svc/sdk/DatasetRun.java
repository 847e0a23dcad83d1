package dev.svc.sdk;

import java.time.Instant;
import java.util.List;

/**
 * A dataset run. {@code datasetRunItems} holds the run's items (newest first) when the run was read by name
 * ({@link Datasets#getRun}); it is empty in lists.
 */
public record DatasetRun(String id, String name, String description, Object metadata, String datasetId, String datasetName,
        Instant createdAt, Instant updatedAt, List<DatasetRunItem> datasetRunItems) {
    public DatasetRun {
        datasetRunItems = datasetRunItems == null ? List.of() : List.copyOf(datasetRunItems);
    }
}
