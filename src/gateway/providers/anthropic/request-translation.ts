// OpenAI Chat Completions body → Anthropic Messages body (docs/providers/anthropic.md lists every choice).
// Pure: plain data in, plain data out, so Claude on Vertex and the worker pool reuse it.
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { JsonObject } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

export interface AnthropicRequestOptions {
  /** Sent as `model`; omitted when undefined (Claude on Vertex names the model in the URL). */
  model?: string;
  /** Sent as the body field `anthropic_version` (Claude on Vertex: `vertex-2023-10-16`); the direct API takes a header instead. */
  anthropicVersion?: string;
  /** `max_tokens` when the request sets neither `max_completion_tokens` nor `max_tokens`; else 4096. */
  defaultMaxTokens?: number;
}

/** The synthetic tool a `json_schema` response format is forced through; its input comes back as the message content. */
export const JSON_RESPONSE_TOOL = 'svc_json_response';

export const FALLBACK_MAX_TOKENS = 4096;

const JSON_OBJECT_INSTRUCTION = 'Respond with a single valid JSON object and nothing else: no prose, no code fences.';

type Block = JsonObject & { type: string };
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

function invalid(message: string): GatewayError {
  return new GatewayError('invalid_request', message);
}

/** A text (or refusal) part as a text block; undefined for empty text, which Anthropic rejects. */
function textBlock(part: unknown, at: string): Block | undefined {
  if (!isObject(part) || (part.type !== 'text' && part.type !== 'refusal')) throw invalid(`${at} must be a text part`);
  const text = part.type === 'text' ? part.text : part.refusal;
  if (typeof text !== 'string') throw invalid(`${at}.text must be a string`);
  if (text === '') return undefined;
  return { type: 'text', text, ...(isObject(part.cache_control) ? { cache_control: part.cache_control } : {}) };
}

/** Text of a string or an array of text parts (system, developer, assistant and tool messages). */
function textBlocksOf(content: unknown, where: string): Block[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw invalid(`${where}.content must be a string or an array of parts`);
  return content.map((part, i) => textBlock(part, `${where}.content[${i}]`)).filter((b) => b !== undefined);
}

const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*),(.*)$/s;

function imageBlock(part: JsonObject, where: string): Block {
  const image = part.image_url;
  const url = isObject(image) ? image.url : image;
  if (typeof url !== 'string') throw invalid(`${where}.image_url.url must be a string`);
  const data = DATA_URL.exec(url);
  if (data) {
    if (!data[2].split(';').includes('base64')) throw invalid(`${where}.image_url: data URLs must be base64-encoded`);
    return { type: 'image', source: { type: 'base64', media_type: data[1].toLowerCase(), data: data[3] } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid(`${where}.image_url.url must be a data URL or an http(s) URL`);
}

/** A `file` part with inline data (PDF or plain text) → a document block. */
function documentBlock(part: JsonObject, where: string): Block {
  const file = isObject(part.file) ? part.file : {};
  const data = typeof file.file_data === 'string' ? DATA_URL.exec(file.file_data) : null;
  if (!data || !data[2].split(';').includes('base64')) {
    throw invalid(
      `${where}.file.file_data must be a base64 data URL (file ids are not supported by Anthropic deployments)`,
    );
  }
  const title = typeof file.filename === 'string' ? { title: file.filename } : {};
  return { type: 'document', source: { type: 'base64', media_type: data[1].toLowerCase(), data: data[3] }, ...title };
}

function userBlocks(content: unknown, where: string): Block[] {
  if (typeof content === 'string' || content === undefined || content === null) return textBlocksOf(content, where);
  if (!Array.isArray(content)) throw invalid(`${where}.content must be a string or an array of parts`);
  const blocks: Block[] = [];
  content.forEach((part, i) => {
    const at = `${where}.content[${i}]`;
    if (!isObject(part)) throw invalid(`${at} must be an object`);
    if (part.type === 'image_url') blocks.push(imageBlock(part, at));
    else if (part.type === 'file') blocks.push(documentBlock(part, at));
    else if (part.type === 'text') {
      const block = textBlock(part, at);
      if (block) blocks.push(block);
    } else throw invalid(`${at}: part type '${String(part.type)}' is not supported by Anthropic deployments`);
  });
  return blocks;
}

function toolUseBlocks(toolCalls: unknown, where: string): Block[] {
  if (toolCalls === undefined || toolCalls === null) return [];
  if (!Array.isArray(toolCalls)) throw invalid(`${where}.tool_calls must be an array`);
  return toolCalls.map((call, i) => {
    const at = `${where}.tool_calls[${i}]`;
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(call) || typeof call.id !== 'string' || !isObject(fn) || typeof fn.name !== 'string') {
      throw invalid(`${at} needs an id and function.name`);
    }
    const args = typeof fn.arguments === 'string' && fn.arguments.trim() !== '' ? fn.arguments : '{}';
    let input: unknown;
    try {
      input = JSON.parse(args);
    } catch {
      throw invalid(`${at}.function.arguments is not valid JSON`);
    }
    if (!isObject(input)) throw invalid(`${at}.function.arguments must encode a JSON object`);
    return { type: 'tool_use', id: call.id, name: fn.name, input };
  });
}

function toolResultBlock(message: JsonObject, where: string): Block {
  if (typeof message.tool_call_id !== 'string') throw invalid(`${where}.tool_call_id must be a string`);
  const content = textBlocksOf(message.content, where);
  return { type: 'tool_result', tool_use_id: message.tool_call_id, ...(content.length > 0 ? { content } : {}) };
}

/** Appends a turn, merging it into the previous one when the role repeats (Anthropic wants alternating roles). */
function pushTurn(turns: Turn[], role: Turn['role'], blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last && last.role === role) last.content.push(...blocks);
  else turns.push({ role, content: [...blocks] });
}

function translateMessages(messages: unknown): { system: Block[]; turns: Turn[] } {
  if (!Array.isArray(messages)) throw invalid('messages must be an array');
  const system: Block[] = [];
  const turns: Turn[] = [];
  messages.forEach((message, i) => {
    const where = `messages[${i}]`;
    if (!isObject(message)) throw invalid(`${where} must be an object`);
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocksOf(message.content, where));
        break;
      case 'user':
        pushTurn(turns, 'user', userBlocks(message.content, where));
        break;
      case 'assistant':
        pushTurn(turns, 'assistant', [
          ...textBlocksOf(message.content, where),
          ...toolUseBlocks(message.tool_calls, where),
        ]);
        break;
      case 'tool':
        pushTurn(turns, 'user', [toolResultBlock(message, where)]);
        break;
      default:
        throw invalid(`${where}.role '${String(message.role)}' is not supported by Anthropic deployments`);
    }
  });
  // Within a user turn, tool results must come before any other content.
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    turn.content = [
      ...turn.content.filter((b) => b.type === 'tool_result'),
      ...turn.content.filter((b) => b.type !== 'tool_result'),
    ];
  }
  return { system, turns };
}

function translateTools(tools: unknown): JsonObject[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw invalid('tools must be an array');
  return tools.map((tool, i) => {
    const fn = isObject(tool) ? tool.function : undefined;
    if (!isObject(tool) || tool.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string') {
      throw invalid(`tools[${i}] must be a function tool with a name`);
    }
    const params = isObject(fn.parameters) ? fn.parameters : {};
    // Anthropic requires an object schema at the root.
    const inputSchema = { ...params, type: 'object', ...(isObject(params.properties) ? {} : { properties: {} }) };
    return {
      name: fn.name,
      ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
      input_schema: inputSchema,
    };
  });
}

function translateToolChoice(choice: unknown, parallel: unknown): JsonObject | undefined {
  let out: JsonObject | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') {
    out = { type: 'tool', name: choice.function.name };
  } else if (choice !== undefined && choice !== null) {
    throw invalid("tool_choice must be 'auto', 'required', 'none' or a named function");
  }
  if (parallel === false && out?.type !== 'none')
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

function stopSequences(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = Array.isArray(stop) ? stop : [stop];
  // Anthropic rejects whitespace-only stop sequences; they are dropped.
  const kept = list.filter((s): s is string => typeof s === 'string' && s.trim() !== '');
  return kept.length > 0 ? kept : undefined;
}

function maxTokensOf(body: JsonObject, fallback: number | undefined): number {
  for (const field of ['max_completion_tokens', 'max_tokens'] as const) {
    const value = body[field];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return fallback ?? FALLBACK_MAX_TOKENS;
}

/** json_schema → a forced synthetic tool (unless the client brought tools); json_object → a system instruction. */
function applyResponseFormat(format: unknown, out: JsonObject, system: Block[]): void {
  if (!isObject(format) || format.type === 'text') return;
  if (format.type === 'json_schema') {
    const spec = isObject(format.json_schema) ? format.json_schema : {};
    const schema = isObject(spec.schema) ? spec.schema : { type: 'object' };
    const objectRoot = schema.type === 'object' || (schema.type === undefined && isObject(schema.properties));
    if (out.tools === undefined && objectRoot) {
      out.tools = [
        {
          name: JSON_RESPONSE_TOOL,
          description: typeof spec.description === 'string' ? spec.description : 'Give the answer as this JSON object.',
          input_schema: { ...schema, type: 'object' },
        },
      ];
      out.tool_choice = { type: 'tool', name: JSON_RESPONSE_TOOL };
      return;
    }
    system.push({
      type: 'text',
      text: `${JSON_OBJECT_INSTRUCTION} The JSON must match this JSON Schema: ${JSON.stringify(schema)}`,
    });
    return;
  }
  if (format.type === 'json_object') system.push({ type: 'text', text: JSON_OBJECT_INSTRUCTION });
}

/** Translates a validated OpenAI chat body. Throws GatewayError('invalid_request') for what Anthropic cannot take. */
export function toAnthropicRequest(body: JsonObject, options: AnthropicRequestOptions = {}): JsonObject {
  if (typeof body.n === 'number' && body.n > 1) throw invalid('n > 1 is not supported by Anthropic deployments');
  const { system, turns } = translateMessages(body.messages);
  if (turns.length === 0) throw invalid('messages must contain at least one user or assistant message with content');
  const out: JsonObject = {};
  if (options.model !== undefined) out.model = options.model;
  if (options.anthropicVersion !== undefined) out.anthropic_version = options.anthropicVersion;
  out.max_tokens = maxTokensOf(body, options.defaultMaxTokens);
  const tools = translateTools(body.tools);
  if (tools && tools.length > 0) {
    out.tools = tools;
    const choice = translateToolChoice(body.tool_choice, body.parallel_tool_calls);
    if (choice) out.tool_choice = choice;
  }
  applyResponseFormat(body.response_format, out, system);
  if (system.length > 0) out.system = system;
  out.messages = turns;
  const stop = stopSequences(body.stop);
  if (stop) out.stop_sequences = stop;
  // OpenAI's range is 0..2, Anthropic's 0..1: clamp rather than fail.
  if (typeof body.temperature === 'number') out.temperature = Math.min(1, Math.max(0, body.temperature));
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (typeof body.top_k === 'number') out.top_k = body.top_k;
  // Anthropic refuses e-mail addresses as user ids; those are not forwarded.
  if (typeof body.user === 'string' && body.user !== '' && !body.user.includes('@'))
    out.metadata = { user_id: body.user };
  if (body.stream === true) out.stream = true;
  return out;
}
