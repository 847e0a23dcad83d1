// POST {base_url}/api/public/otel/v1/traces: OTLP/HTTP trace export, protobuf or JSON, optionally gzipped
// (docs/public-api.md "OpenTelemetry intake"). Spans become ingestion events and are stored before the answer.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { experimentItemLinksOf } from '../../../src/observability/ingestion/otel/experiment-items.ts';
import { processBatch } from '../../../src/observability/ingestion/process-batch.ts';
import {
  decodeRequest,
  decompressed,
  encodeResponse,
  encodingOf,
  OtlpRequestError,
  type OtlpEncoding,
} from '../../../src/observability/ingestion/otel/otlp-decode.ts';
import { spansOf } from '../../../src/observability/ingestion/otel/otlp-spans.ts';
import { eventsOfSpans } from '../../../src/observability/ingestion/otel/spans-to-events.ts';
import { linkExperimentItems } from '../../../src/platform/store/repos/dataset-runs.ts';
import type { AdminContext } from '../../context.ts';
import { PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';
import { CHECKS_ITS_OWN_BODY } from '../storable-text.ts';
import { decompressedLimit, INTAKE_BODY_LIMIT } from '../intake-limits.ts';

const MAX_INGESTION_VERSION = 4;

interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

function checkIngestionVersion(header: string | string[] | undefined): void {
  if (header === undefined) return;
  const value = String(header).trim();
  if (!/^\d+$/.test(value) || Number(value) > MAX_INGESTION_VERSION) {
    const message = `Unsupported x-langfuse-ingestion-version "${value}". Maximum supported: "${MAX_INGESTION_VERSION}".`;
    throw new OtlpRequestError(400, message, message);
  }
}

/** An empty ExportTraceServiceResponse in the request's encoding, with OTLP's partial success when spans were refused. */
function answer(reply: FastifyReply, encoding: OtlpEncoding, partialSuccess?: PartialSuccess) {
  if (encoding === 'protobuf')
    return reply.code(200).type('application/x-protobuf').send(encodeResponse(partialSuccess));
  return reply.code(200).send(partialSuccess ? { partialSuccess } : {});
}

async function exportTraces(
  ctx: AdminContext,
  projectId: string,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
  encoding: OtlpEncoding,
) {
  checkIngestionVersion(headers['x-langfuse-ingestion-version']);
  const raw = await decompressed(
    body,
    headers['content-encoding'] as string | undefined,
    encoding,
    decompressedLimit(body.length),
  );
  const spans = spansOf(decodeRequest(raw, encoding), new Date(ctx.clock.now()).toISOString());
  if (spans.length === 0) return undefined;
  const { events, spanOfEvent, fillOnly } = eventsOfSpans(spans);
  const result = await processBatch(ctx.db, projectId, events, ctx.log, fillOnly);
  const failed = result.errors.find((e) => e.status >= 500);
  if (failed) throw new PublicApiError('InternalServerError', failed.message);
  const rejected = result.errors.map((e) => ({ span: spanOfEvent.get(e.id)!, message: e.message }));
  const refused = new Set(rejected.map((r) => r.span));
  await linkExperimentItems(ctx.db, projectId, experimentItemLinksOf(spans.filter((s) => !refused.has(s))));
  if (result.errors.length === 0) return undefined;
  return {
    rejectedSpans: refused.size,
    errorMessage: rejected.map((r) => `span ${r.span.spanId}: ${r.message}`).join('; '),
  };
}

export function registerPublicOtel(app: FastifyInstance, ctx: AdminContext): void {
  // Its own scope: the body arrives as bytes whatever the content type, and is checked and decoded here.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INTAKE_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    // The spans' events are checked one by one in processBatch; the body is bytes here.
    scope.post(
      '/otel/v1/traces',
      { bodyLimit: INTAKE_BODY_LIMIT, config: CHECKS_ITS_OWN_BODY, onRequest: requireKey(ctx, 'ingestion-write') },
      async (req, reply) => {
        const encoding = encodingOf(req.headers['content-type']);
        try {
          if (!encoding)
            throw new OtlpRequestError(
              400,
              'Invalid content type',
              'Invalid content type: send application/x-protobuf or application/json',
            );
          const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          return answer(reply, encoding, await exportTraces(ctx, projectOf(req).id, body, req.headers, encoding));
        } catch (err) {
          if (err instanceof OtlpRequestError)
            return reply.code(err.status).send({ error: err.error, message: err.message });
          throw err;
        }
      },
    );
  });
}
