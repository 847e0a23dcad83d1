// A provider registry for plugin-level router tests: every deployment answers from a script, as an adapter would
// after its transport and error mapping (UpstreamError), and every call is recorded.
import type {
  ChatChunk,
  DeploymentConfig,
  ProviderAdapter,
  ProviderCall,
  ProviderRegistry,
  Usage,
} from '../../src/plugin-api/index.ts';
import { UpstreamError } from '../../src/plugin-api/index.ts';

export type Step = (
  | /** A complete answer (chat or embeddings), with the provider's usage. */ { answer: string; usage?: Usage }
  | { fail: UpstreamError }
  /** A stream of content pieces; a usage chunk last when `usage` is given. */
  | { stream: string[]; usage?: Usage }
) & {
  /** Runs when the call is made (for example: the client leaves meanwhile). */
  effect?: () => void;
};

export interface RecordedCall {
  deployment: string;
  kind: 'chat' | 'stream' | 'embeddings';
  call: ProviderCall;
}

export interface FakeProviders extends ProviderRegistry {
  readonly calls: RecordedCall[];
  /** Queues what the next calls get, whichever deployment they go to; before any deployment's own script. */
  next(...steps: Step[]): void;
  /** Queues what the deployment answers next, one step per call; with both queues empty it answers 'ok'. */
  script(deploymentId: string, ...steps: Step[]): void;
}

export const usage = (prompt: number, completion: number): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

/** An HTTP failure as the OpenAI transport reports it. */
export const httpError = (status: number, retryAfterMs?: number) =>
  new UpstreamError('http', `fake error ${status}`, { status, retryAfterMs });

function chunk(delta: Record<string, unknown>, finish: string | null): ChatChunk {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

async function* chunks(pieces: string[], end: Usage | undefined): AsyncGenerator<ChatChunk> {
  yield chunk({ role: 'assistant', content: '' }, null);
  for (const p of pieces) yield chunk({ content: p }, null);
  yield chunk({}, 'stop');
  if (end) yield { id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage: end };
}

export function fakeProviders(): FakeProviders {
  const queues = new Map<string, Step[]>();
  const anyDeployment: Step[] = [];
  const calls: RecordedCall[] = [];
  const stepFor = (d: DeploymentConfig): Step =>
    anyDeployment.shift() ?? queues.get(d.id)?.shift() ?? { answer: 'ok', usage: usage(10, 5) };
  const answer = (d: DeploymentConfig, kind: RecordedCall['kind'], call: ProviderCall) => {
    calls.push({ deployment: d.id, kind, call });
    const step = stepFor(d);
    step.effect?.();
    if ('fail' in step) throw step.fail;
    return step;
  };
  const adapter: ProviderAdapter = {
    name: 'fake',
    supportsEmbeddings: true,
    // As the OpenAI-compatible adapter: a deployment without a key takes no traffic.
    unavailableReason: (d) => (d.api_key === '' ? 'no api_key' : undefined),
    async chat(call) {
      const step = answer(call.deployment, 'chat', call);
      if (!('answer' in step)) throw new Error('scripted a stream for a non-streamed call');
      const body = {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: step.answer }, finish_reason: 'stop' }],
        usage: step.usage,
      };
      return { body, usage: step.usage };
    },
    async chatStream(call) {
      const step = answer(call.deployment, 'stream', call);
      if ('answer' in step) return chunks(step.answer.split(/(?<= )/), step.usage);
      return chunks(step.stream, step.usage);
    },
    async embeddings(call) {
      const step = answer(call.deployment, 'embeddings', call);
      if (!('answer' in step)) throw new Error('scripted a stream for an embeddings call');
      return {
        body: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5] }] },
        usage: step.usage,
      };
    },
  };
  return {
    calls,
    next(...steps) {
      anyDeployment.push(...steps);
    },
    script(deploymentId, ...steps) {
      queues.set(deploymentId, [...(queues.get(deploymentId) ?? []), ...steps]);
    },
    forDeployment: () => adapter,
  };
}
