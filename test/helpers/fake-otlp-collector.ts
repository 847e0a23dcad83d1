// A fake OpenTelemetry collector: a real OTLP/HTTP traces receiver (POST /v1/traces) that decodes
// ExportTraceServiceRequest with the OTel project's generated protobuf definitions (or OTLP/JSON) and answers as a
// collector does. Tests script the status of each export, or hold it unanswered.
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocally } from './local-server.ts';

const otlp = createRequire(import.meta.url)('otlp-transformer-protobufjs/build/src/generated/root.js').opentelemetry
  .proto;
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = otlp.collector.trace.v1;

/** One received span, ids in hex and attribute values as plain JS values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 UNSET, 1 OK, 2 ERROR. */
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface FakeCollector {
  /** The traces URL to configure as tracing.otlp.endpoint. */
  endpoint: string;
  /** Every export request received (answered or not), with its content type. */
  exports: { contentType: string; spans: number }[];
  /** Spans of the exports answered 2xx. */
  spans: ReceivedSpan[];
  /** Statuses of the next exports, in order; then 200. `hold` answers only when `release()` is called. */
  answers: (number | 'hold')[];
  /** Accepts the held exports (200). */
  release(): void;
  close(): Promise<void>;
}

type AnyValue = Record<string, any> | undefined;

function valueOf(v: AnyValue): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

/** OTLP/JSON ids are hex already; protobuf ids arrive as bytes. */
const hex = (id: unknown): string =>
  typeof id === 'string' ? id : id ? Buffer.from(id as Uint8Array).toString('hex') : '';

function spansOf(request: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: String(s.startTimeUnixNano),
          endTimeUnixNano: String(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message || undefined },
          resource,
          scope: ss.scope?.name ?? '',
        });
  }
  return out;
}

function decode(contentType: string, body: Buffer): ReceivedSpan[] {
  if (contentType.includes('application/json')) return spansOf(JSON.parse(body.toString('utf8')));
  const message = ExportTraceServiceRequest.decode(body);
  return spansOf(ExportTraceServiceRequest.toObject(message, { longs: String, enums: Number }));
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

function accept(res: ServerResponse, contentType: string): void {
  if (contentType.includes('application/json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  else
    res
      .writeHead(200, { 'content-type': 'application/x-protobuf' })
      .end(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject({})).finish());
}

export async function startFakeCollector(): Promise<FakeCollector> {
  const held: (() => void)[] = [];
  const collector: Omit<FakeCollector, 'endpoint' | 'close'> = {
    exports: [],
    spans: [],
    answers: [],
    release: () => held.splice(0).forEach((answer) => answer()),
  };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const spans = decode(contentType, body);
    collector.exports.push({ contentType, spans: spans.length });
    const answer = collector.answers.shift() ?? 200;
    if (answer === 'hold') {
      held.push(() => {
        collector.spans.push(...spans);
        accept(res, contentType);
      });
      return;
    }
    if (answer >= 300) {
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{"code":14,"message":"unavailable"}');
      return;
    }
    collector.spans.push(...spans);
    accept(res, contentType);
  });
  const { url, close } = await listenLocally(server);
  return Object.assign(collector, { endpoint: `${url}/v1/traces`, close });
}
