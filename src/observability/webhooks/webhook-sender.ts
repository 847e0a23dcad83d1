// One delivery attempt: a POST through an undici Agent whose sockets resolve hosts with the SSRF-checked lookup,
// with a timeout for the whole attempt (redirects included). Redirects are followed by hand, at most five hops,
// each URL checked again; the same body is POSTed to the next hop (a webhook is not turned into a GET).
import { Agent, request, type Dispatcher } from 'undici';
import { checkUrl, checkedLookup, SsrfError, type SsrfPolicy } from './ssrf.ts';

const MAX_REDIRECTS = 5;
const ANSWER_BYTES = 1024;

export interface SendResult {
  status: number;
  /** The first 1 KB of the answer. */
  answer: string;
}

export interface WebhookSender {
  send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult>;
  close(): Promise<void>;
}

export function createWebhookSender(policy: () => SsrfPolicy): WebhookSender {
  // Its own Agent, not the gateway's shared dispatcher: only here does every socket take the checked lookup.
  const dispatcher: Dispatcher = new Agent({
    keepAliveTimeout: 10_000,
    connections: 32,
    connect: { lookup: checkedLookup(policy) } as object,
  });
  return {
    async send(url, body, headers, timeoutMs) {
      const signal = AbortSignal.timeout(timeoutMs);
      let target = new URL(url);
      for (let hop = 0; ; hop++) {
        checkUrl(target, policy());
        const res = await request(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'svc-webhooks/1', ...headers },
          body,
          dispatcher,
          signal,
        });
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
          await res.body.dump();
          if (hop >= MAX_REDIRECTS) throw new SsrfError(`more than ${MAX_REDIRECTS} redirects`);
          target = new URL(location, target);
          continue;
        }
        return { status: res.statusCode, answer: await firstBytes(res.body) };
      }
    },
    close: () => dispatcher.close(),
  };
}

async function firstBytes(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= ANSWER_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString('utf8');
}
