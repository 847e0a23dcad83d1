// The real Langfuse JS SDK v5 against the running service: @langfuse/tracing spans exported by @langfuse/otel's
// LangfuseSpanProcessor (OTLP/JSON to POST /api/public/otel/v1/traces), flushed, and the stored trace and
// observations read back through GET /api/public/traces/{id}; then @langfuse/client prompts. Both backends.
import { AsyncLocalStorage } from 'node:async_hooks';
import { LangfuseClient } from '@langfuse/client';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import {
  propagateAttributes,
  setLangfuseTracerProvider,
  startActiveObservation,
  startObservation,
} from '@langfuse/tracing';
import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import t from 'tap';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { basicAuth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

/** Context propagation for startActiveObservation and propagateAttributes (what @opentelemetry/context-async-hooks does). */
class AsyncLocalStorageContextManager implements ContextManager {
  #storage = new AsyncLocalStorage<Context>();
  active = () => this.#storage.getStore() ?? ROOT_CONTEXT;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }
  enable = () => this;
  disable = () => {
    this.#storage.disable();
    return this;
  };
}
context.setGlobalContextManager(new AsyncLocalStorageContextManager());
t.teardown(() => context.disable());

const COMPLETION_START = new Date('2026-05-01T12:00:00.250Z');

for (const backend of STORE_BACKENDS) {
  t.test(`Langfuse SDK v5 on ${backend}`, async (t) => {
    const { s, db, key } = await startPublicApiService(t, backend);
    const credentials = { publicKey: key.publicKey, secretKey: key.secretKey, baseUrl: s.adminUrl };

    t.test('tracing: a trace with a span, generations, a tool and an event', async (t) => {
      const processor = new LangfuseSpanProcessor({ ...credentials, environment: 'e2e', release: 'r-7' });
      const provider = new BasicTracerProvider({ spanProcessors: [processor] });
      setLangfuseTracerProvider(provider);
      t.teardown(async () => {
        setLangfuseTracerProvider(null);
        await provider.shutdown();
      });

      const ids: Record<string, string> = {};
      await propagateAttributes(
        {
          userId: 'user-1',
          sessionId: 'session-1',
          tags: ['otel', 'e2e'],
          metadata: { team: 'a' },
          traceName: 'otel-trace',
          version: 'v3',
        },
        () =>
          startActiveObservation('agent-run', async (root) => {
            ids.trace = root.traceId;
            ids.root = root.id;
            root.update({ input: { question: 'why?' }, metadata: { step: 'start' } });
            root.setTraceIO({ input: { question: 'why?' }, output: { answer: 'because' } });
            const generation = startObservation(
              'llm-call',
              {
                model: 'gpt-4o-mini',
                input: [{ role: 'user', content: 'why?' }],
                modelParameters: { temperature: 0.2, max_tokens: 100 },
                usageDetails: { input: 11, output: 4 },
                costDetails: { input: 0.001, output: 0.002 },
                completionStartTime: COMPLETION_START,
                prompt: { name: 'movie-critic', version: 2, isFallback: false },
              },
              { asType: 'generation' },
            );
            ids.generation = generation.id;
            generation.update({ output: { role: 'assistant', content: 'because' } }).end();
            const openAi = startObservation(
              'openai-call',
              {
                // OpenAI's raw usage object, as apps pass it on; the SDK's type only lists flat counts, the wire is JSON either way.
                model: 'gpt-4o',
                usageDetails: {
                  prompt_tokens: 20,
                  completion_tokens: 8,
                  total_tokens: 28,
                  prompt_tokens_details: { cached_tokens: 5 },
                } as unknown as Record<string, number>,
              },
              { asType: 'generation' },
            );
            ids.openAi = openAi.id;
            openAi.end();
            const tool = startObservation(
              'search',
              { input: { query: 'why' }, level: 'WARNING', statusMessage: 'slow index' },
              { asType: 'tool' },
            );
            ids.tool = tool.id;
            tool.update({ output: { hits: 3 } }).end();
            ids.event = startObservation('user-feedback', { input: { thumbs: 'up' } }, { asType: 'event' }).id;
            root.update({ output: { answer: 'because' } });
          }),
      );
      await processor.forceFlush();

      const r = await callAdmin(s, 'GET', `/api/public/traces/${ids.trace}`, basicAuth(key));
      t.equal(r.status, 200, 'the trace is stored');
      const trace = r.body;
      t.match(trace, {
        name: 'otel-trace',
        userId: 'user-1',
        sessionId: 'session-1',
        input: { question: 'why?' },
        output: { answer: 'because' },
        environment: 'e2e',
        release: 'r-7',
        version: 'v3',
        metadata: { team: 'a' },
      });
      t.same([...trace.tags].sort(), ['e2e', 'otel']);
      const byId = Object.fromEntries(trace.observations.map((o: any) => [o.id, o]));
      t.same(Object.keys(byId).sort(), [ids.root, ids.generation, ids.openAi, ids.tool, ids.event].sort());
      t.match(byId[ids.root], {
        type: 'SPAN',
        name: 'agent-run',
        parentObservationId: null,
        input: { question: 'why?' },
        output: { answer: 'because' },
        metadata: { step: 'start' },
        environment: 'e2e',
      });
      const gen = byId[ids.generation];
      t.match(gen, {
        type: 'GENERATION',
        name: 'llm-call',
        parentObservationId: ids.root,
        model: 'gpt-4o-mini',
        modelParameters: { temperature: 0.2, max_tokens: 100 },
        input: [{ role: 'user', content: 'why?' }],
        output: { role: 'assistant', content: 'because' },
        completionStartTime: COMPLETION_START.toISOString(),
        promptName: 'movie-critic',
        promptVersion: 2,
        calculatedTotalCost: 0.003,
      });
      t.same(gen.usageDetails, { input: 11, output: 4, total: 15 });
      t.same(gen.costDetails, { input: 0.001, output: 0.002 });
      t.same(
        byId[ids.openAi].usageDetails,
        { input: 15, input_cached_tokens: 5, output: 8, total: 28 },
        'OpenAI usage as exclusive buckets',
      );
      t.match(byId[ids.tool], {
        type: 'TOOL',
        name: 'search',
        level: 'WARNING',
        statusMessage: 'slow index',
        output: { hits: 3 },
      });
      t.match(byId[ids.event], { type: 'EVENT', name: 'user-feedback', input: { thumbs: 'up' } });
      t.match(await getTrace(db, 'default', ids.trace), { tokens: 43, source: 'ingestion' });
    });

    t.test('client: text and chat prompts, by label and version, in a folder', async (t) => {
      const langfuse = new LangfuseClient(credentials);
      const text = await langfuse.prompt.create({
        name: 'otel-greeting',
        prompt: 'Hello {{name}} from {{place}}.',
        labels: ['production'],
        config: { temperature: 0.1 },
      });
      t.equal(text.version, 1);
      await langfuse.prompt.create({ name: 'otel-greeting', prompt: 'Hi {{name}}!' });
      const chatV1 = await langfuse.prompt.create({
        name: 'team/a',
        type: 'chat',
        labels: ['production'],
        prompt: [
          { role: 'system', content: 'You help {{team}}.' },
          { role: 'user', content: '{{question}}' },
        ],
      });
      t.equal(chatV1.version, 1);
      await langfuse.prompt.create({
        name: 'team/a',
        type: 'chat',
        labels: ['staging'],
        prompt: [{ role: 'system', content: 'You assist {{team}}.' }],
      });

      const production = await langfuse.prompt.get('otel-greeting', { cacheTtlSeconds: 0 });
      t.equal(production.version, 1, 'production by default');
      t.equal(production.compile({ name: 'Ada', place: 'Paris' }), 'Hello Ada from Paris.');
      t.same(production.config, { temperature: 0.1 });
      t.equal(
        (await langfuse.prompt.get('otel-greeting', { version: 2, cacheTtlSeconds: 0 })).compile({ name: 'Bo' }),
        'Hi Bo!',
      );
      t.equal((await langfuse.prompt.get('otel-greeting', { label: 'latest', cacheTtlSeconds: 0 })).version, 2);

      // The folder name travels as team%2Fa: an unencoded slash would be another path and a 404.
      const chat = await langfuse.prompt.get('team/a', { type: 'chat', label: 'production', cacheTtlSeconds: 0 });
      t.equal(chat.version, 1);
      t.same(chat.compile({ team: 'billing', question: 'refund?' }), [
        { role: 'system', content: 'You help billing.' },
        { role: 'user', content: 'refund?' },
      ]);
      const staging = await langfuse.prompt.get('team/a', { type: 'chat', version: 2, cacheTtlSeconds: 0 });
      t.same(staging.compile({ team: 'sales' }), [{ role: 'system', content: 'You assist sales.' }]);
      t.same(staging.labels.sort(), ['latest', 'staging']);

      // The SDK marks chat messages `type: "chatmessage"`; they are stored as sent.
      const msg = (role: string, content: string) => ({ role, content, type: 'chatmessage' });
      const rows = await db.query<{ name: string; version: number; type: string; prompt: unknown; labels: string[] }>(
        "SELECT name, version, type, prompt, labels FROM prompts WHERE project_id = 'default' AND name IN ('otel-greeting', 'team/a') ORDER BY name, version",
      );
      t.same(
        rows.rows.map((r) => ({ ...r, version: Number(r.version), labels: [...r.labels].sort() })),
        [
          {
            name: 'otel-greeting',
            version: 1,
            type: 'text',
            prompt: 'Hello {{name}} from {{place}}.',
            labels: ['production'],
          },
          { name: 'otel-greeting', version: 2, type: 'text', prompt: 'Hi {{name}}!', labels: ['latest'] },
          {
            name: 'team/a',
            version: 1,
            type: 'chat',
            prompt: [msg('system', 'You help {{team}}.'), msg('user', '{{question}}')],
            labels: ['production'],
          },
          {
            name: 'team/a',
            version: 2,
            type: 'chat',
            prompt: [msg('system', 'You assist {{team}}.')],
            labels: ['latest', 'staging'],
          },
        ],
      );
    });
  });
}
