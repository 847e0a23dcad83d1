// A fake OpenAI-wire provider with a prompt cache, as OpenAI, Anthropic and Gemini have one: a real node:http server
// answering /v1/chat/completions, which reports `prompt_tokens_details.cached_tokens` only for the part of a prompt
// this same server saw recently: the longest run of leading messages (tools first) that an earlier request sent.
// "Recently" is the last `capacity` prefixes seen, not a time, so tests do not depend on the clock. It can hold its
// answers (a slow deployment) and counts the requests it holds.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { chatCompletion } from './fake-openai.ts';
import { listenLocally } from './local-server.ts';

export interface PromptCacheProvider {
  url: string;
  /** Requests answered or held. */
  received: number;
  /** Requests held now (while `hold` is set). */
  holding: number;
  /** While set, requests are held until it resolves. */
  hold?: Promise<void>;
  close(): Promise<void>;
}

/** Tokens of a text, as a rough tokenizer counts them (4 characters each). */
const tokens = (text: string) => Math.ceil(text.length / 4);

export async function startPromptCacheProvider(capacity = 1000): Promise<PromptCacheProvider> {
  // Prefix hash → tokens of that prefix, in the order last seen (a Map keeps insertion order: an LRU).
  const seen = new Map<string, number>();
  const fake: PromptCacheProvider = { url: '', received: 0, holding: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      fake.received++;
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const hash = createHash('sha256');
      const tools = body.tools === undefined ? '' : JSON.stringify(body.tools);
      hash.update(tools);
      let prefixTokens = tokens(tools);
      let cached = 0;
      const prefixes: [string, number][] = [];
      for (const m of body.messages as { role: string; content: string }[]) {
        hash.update(`\u0000${m.role}\u0000${m.content}`);
        prefixTokens += tokens(m.content);
        const key = hash.copy().digest('hex');
        if (seen.has(key)) cached = prefixTokens;
        prefixes.push([key, prefixTokens]);
      }
      for (const [key, n] of prefixes) {
        seen.delete(key);
        seen.set(key, n);
      }
      while (seen.size > capacity) seen.delete(seen.keys().next().value!);
      if (fake.hold) {
        fake.holding++;
        await fake.hold;
        fake.holding--;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chatCompletion('ok', { prompt_tokens: prefixTokens, completion_tokens: 20 }, cached)));
    });
  });
  const listening = await listenLocally(server);
  fake.url = listening.url;
  fake.close = listening.close;
  return fake;
}
