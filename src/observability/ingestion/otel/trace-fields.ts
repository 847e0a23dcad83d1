// Trace fields from a span's attributes (docs/public-api.md "OpenTelemetry intake", the Mapping table), first match
// wins, as a trace-create body.
import { withoutNulls } from '../event-schema.ts';
import {
  firstOf,
  flattenedUnder,
  isTrue,
  objectOf,
  parsedJson,
  stringOf,
  type Attributes,
} from './attribute-values.ts';
import type { OtelSpan } from './otlp-spans.ts';

const USER_KEYS = [
  'langfuse.user.id',
  'user.id',
  'langfuse.observation.metadata.langfuse_user_id',
  'langfuse.trace.metadata.langfuse_user_id',
  'ai.telemetry.metadata.userId',
];
const SESSION_KEYS = [
  'langfuse.session.id',
  'session.id',
  'gen_ai.conversation.id',
  'langfuse.observation.metadata.langfuse_session_id',
  'langfuse.trace.metadata.langfuse_session_id',
  'ai.telemetry.metadata.sessionId',
];
const TAG_KEYS = [
  'langfuse.trace.tags',
  'langfuse.tags',
  'langfuse.observation.metadata.langfuse_tags',
  'langfuse.trace.metadata.langfuse_tags',
  'ai.telemetry.metadata.tags',
  'tag.tags',
];

/** An array, a JSON array text, a comma list or one tag. */
export function tagsOf(v: unknown): string[] | undefined {
  const parsed = parsedJson(v);
  const list = Array.isArray(parsed) ? parsed : typeof parsed === 'string' ? parsed.split(',') : [];
  const tags = list.map((t) => stringOf(t)?.trim()).filter((t): t is string => !!t);
  return tags.length > 0 ? tags : undefined;
}

/** A span attribute, else the resource's. */
export const spanOrResource = (span: OtelSpan, keys: readonly string[]) =>
  stringOf(firstOf(span.attributes, keys) ?? firstOf(span.resourceAttributes, keys));

export const versionOf = (span: OtelSpan) =>
  stringOf(firstOf(span.attributes, ['langfuse.version']) ?? firstOf(span.resourceAttributes, ['service.version']));
export const environmentOf = (span: OtelSpan) =>
  spanOrResource(span, ['langfuse.environment', 'deployment.environment.name', 'deployment.environment']);

function traceMetadataOf(attrs: Attributes): Record<string, unknown> | undefined {
  const metadata = {
    ...objectOf(attrs['langfuse.trace.metadata']),
    ...flattenedUnder(attrs, 'langfuse.trace.metadata'),
    ...flattenedUnder(attrs, 'langfuse.metadata'),
    ...flattenedUnder(attrs, 'ai.telemetry.metadata'),
  };
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** The trace fields the span sets explicitly (not counting the root span's fallbacks). */
export function explicitTraceFields(span: OtelSpan): Record<string, unknown> {
  const a = span.attributes;
  const publicFlag = firstOf(a, ['langfuse.trace.public', 'langfuse.public']);
  const fields: Record<string, unknown> = {
    name: stringOf(a['langfuse.trace.name'])?.slice(0, 1000),
    userId: stringOf(firstOf(a, USER_KEYS)),
    sessionId: stringOf(firstOf(a, SESSION_KEYS)),
    tags: tagsOf(firstOf(a, TAG_KEYS)),
    public: publicFlag === undefined ? undefined : isTrue(publicFlag),
    input: a['langfuse.trace.input'] === undefined ? undefined : parsedJson(a['langfuse.trace.input']),
    output: a['langfuse.trace.output'] === undefined ? undefined : parsedJson(a['langfuse.trace.output']),
    metadata: traceMetadataOf(a),
    release: stringOf(firstOf(a, ['langfuse.release'])),
  };
  return withoutNulls(fields);
}
