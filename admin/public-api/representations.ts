// The public API's read shapes of traces, observations and scores (Langfuse's Trace, ObservationsView and Score;
// docs/public-api.md "Traces, observations and sessions", "Scores"), shared by the routes that answer them.
import type { ModelDefinition } from '../../src/platform/store/repos/models.ts';
import { unitPrices } from '../../src/platform/pricing/observation-model.ts';
import type { StoredScore } from '../../src/platform/store/repos/scores.ts';
import type { StoredTrace } from '../../src/platform/store/repos/traces.ts';
import type { StoredObservation } from '../../src/platform/store/repos/observations.ts';

/** Our tags are an object; Langfuse's a string list: `k` for an empty value, else `k:v` (the filter accepts both). */
export const tagList = (tags: Record<string, string>): string[] =>
  Object.entries(tags).map(([k, v]) => (v === '' ? k : `${k}:${v}`));

export function publicTrace(t: StoredTrace) {
  return {
    id: t.id,
    timestamp: t.startTime,
    name: t.name,
    input: t.input ?? null,
    output: t.output ?? null,
    sessionId: t.sessionId,
    release: t.release,
    version: t.version,
    userId: t.userId,
    metadata: t.metadata,
    tags: tagList(t.tags),
    public: t.public,
    environment: t.environment,
    htmlPath: `/project/${encodeURIComponent(t.projectId)}/traces/${encodeURIComponent(t.id)}`,
    // Langfuse's latency, over the observations; a trace without any reports 0, as Langfuse does.
    latency: t.observationLatencySeconds ?? 0,
    totalCost: t.cost,
    observations: t.observationIds ?? [],
    scores: t.scoreIds ?? [],
    projectId: t.projectId,
    bookmarked: false,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    externalId: null,
    // Not Langfuse fields: a gateway trace called with a W3C traceparent names the caller's trace and span.
    parentTraceId: t.parentTraceId,
    parentObservationId: t.parentSpanId,
  };
}

/** The sum of the entries whose key contains `part` (Langfuse's back-compat usage fields); null when there are none. */
function sumOf(details: Record<string, number>, part: string): number | null {
  const values = Object.entries(details)
    .filter(([k]) => k.includes(part))
    .map(([, v]) => v);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
}

const seconds = (from: string, to: string | null): number | null =>
  to === null ? null : (Date.parse(to) - Date.parse(from)) / 1000;

/** Langfuse's ObservationsView; `model` is the observation's model (observation-model.ts), which gives `modelId` and the prices. */
export function publicObservation(o: StoredObservation, model: ModelDefinition | undefined) {
  const input = sumOf(o.usageDetails, 'input') ?? 0;
  const output = sumOf(o.usageDetails, 'output') ?? 0;
  const total = o.usageDetails.total ?? o.totalTokens;
  return {
    id: o.id,
    projectId: o.projectId,
    traceId: o.traceId,
    parentObservationId: o.parentObservationId,
    type: o.type,
    name: o.name,
    environment: o.environment,
    startTime: o.startTime,
    endTime: o.endTime,
    completionStartTime: o.completionStartTime,
    version: o.version,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    input: o.input ?? null,
    output: o.output ?? null,
    // Langfuse's observation metadata is our observation `attributes`.
    metadata: o.attributes,
    level: o.level,
    statusMessage: o.statusMessage,
    model: o.model,
    modelParameters: o.modelParameters ?? {},
    promptId: o.promptId,
    promptName: o.promptName,
    promptVersion: o.promptVersion,
    usageDetails: o.usageDetails,
    costDetails: o.costDetails,
    usagePricingTierName: null,
    usagePricingTierId: null,
    modelId: model?.id ?? null,
    ...unitPrices(model),
    calculatedInputCost: sumOf(o.costDetails, 'input'),
    calculatedOutputCost: sumOf(o.costDetails, 'output'),
    calculatedTotalCost: o.totalCost,
    latency: seconds(o.startTime, o.endTime),
    timeToFirstToken: o.completionStartTime === null ? null : seconds(o.startTime, o.completionStartTime),
    usage: { unit: 'TOKENS', input, output, total },
    unit: 'TOKENS',
    promptTokens: input,
    completionTokens: output,
    totalTokens: total,
  };
}

/** Langfuse's score read shape: a CATEGORICAL or TEXT score's `value` is 0 without a config (no category number). */
export function publicScore(s: StoredScore) {
  return {
    id: s.id,
    projectId: s.projectId,
    traceId: s.traceId,
    observationId: s.observationId,
    sessionId: s.sessionId,
    datasetRunId: s.datasetRunId,
    name: s.name,
    dataType: s.dataType,
    value: s.value ?? 0,
    ...(s.dataType === 'NUMERIC' ? {} : { stringValue: s.stringValue }),
    source: s.source,
    comment: s.comment,
    metadata: s.metadata,
    configId: s.configId,
    queueId: s.queueId,
    authorUserId: s.authorUserId,
    environment: s.environment,
    timestamp: s.timestamp,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
