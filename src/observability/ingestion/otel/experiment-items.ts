// Experiment runs recorded on spans (the experiment API of the Langfuse Python SDK v5): every span of a dataset item's
// execution carries `langfuse.experiment.*`, and the item's root span names itself in
// `langfuse.experiment.item.root_observation_id`. Langfuse v4 keeps these as experiments; here each such root span
// becomes a run item of the dataset run named `langfuse.experiment.name`, linking the item to the trace, so the
// dataset run routes show the runs these SDKs make.
import type { ExperimentItemLink } from '../../../platform/store/repos/dataset-runs.ts';
import { flattenedUnder, objectOf, stringOf, type Attributes } from './attribute-values.ts';
import type { OtelSpan } from './otlp-spans.ts';

/** The experiment metadata, as one JSON object (Python SDK) or flattened under the key (as trace metadata is). */
function metadataOf(a: Attributes): Record<string, unknown> | undefined {
  const metadata = {
    ...objectOf(a['langfuse.experiment.metadata']),
    ...flattenedUnder(a, 'langfuse.experiment.metadata'),
  };
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** The run item each item root span records; spans of experiments on local data (no dataset) link nothing. */
export function experimentItemLinksOf(spans: readonly OtelSpan[]): ExperimentItemLink[] {
  const links: ExperimentItemLink[] = [];
  for (const span of spans) {
    const a = span.attributes;
    if (stringOf(a['langfuse.experiment.item.root_observation_id']) !== span.spanId) continue;
    const [runId, runName, datasetId, datasetItemId] = ['id', 'name', 'dataset.id', 'item.id'].map((k) =>
      stringOf(a[`langfuse.experiment.${k}`]),
    );
    if (!runId || !runName || !datasetId || !datasetItemId) continue;
    links.push({
      runId,
      runName,
      datasetId,
      datasetItemId,
      runDescription: stringOf(a['langfuse.experiment.description']),
      metadata: metadataOf(a),
      traceId: span.traceId,
      observationId: span.spanId,
      createdAt: span.startTime,
    });
  }
  return links;
}
