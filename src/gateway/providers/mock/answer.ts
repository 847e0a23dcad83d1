// What the mock provider answers: a function of the request only (model, messages, tools, tool_choice,
// response_format, max tokens), so the same request always gets the same answer.
import { createHash } from 'node:crypto';
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import {
  estimateChatPromptTokens,
  estimateTextTokens,
  outputAllowance,
} from '../../../platform/pricing/token-estimate.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { sampleFromSchema } from './schema-sample.ts';

export interface MockAnswer {
  /** Set when the answer calls a tool: then the pieces are its arguments, else the message content. */
  toolCall?: { id: string; name: string };
  /** One piece per completion token (words of text, or four-character slices of JSON), in order. */
  pieces: string[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: Usage;
}

interface FunctionTool {
  name: string;
  parameters?: unknown;
}

type Message = { role?: unknown; content?: unknown; tool_call_id?: unknown; tool_calls?: unknown; name?: unknown };

/** Quoted text is cut here, so an answer stays short whatever was sent. */
const QUOTE_LIMIT = 200;

const quote = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, QUOTE_LIMIT);

function contentText(content: unknown, separator: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : ''))
    .join(separator);
}

function lastUserText(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]?.role === 'user') return contentText(messages[i].content, ' ');
  return '';
}

/** The tool results that end the conversation, each named after the call it answers. */
function trailingToolResults(messages: Message[]): { name: string; result: string }[] {
  let first = messages.length;
  while (first > 0 && messages[first - 1]?.role === 'tool') first--;
  const calls = new Map<unknown, string>();
  for (const m of messages.slice(0, first))
    if (Array.isArray(m?.tool_calls))
      for (const c of m.tool_calls as { id?: unknown; function?: { name?: unknown } }[])
        if (typeof c?.function?.name === 'string') calls.set(c.id, c.function.name);
  return messages.slice(first).map((m) => ({
    name: calls.get(m.tool_call_id) ?? (typeof m.name === 'string' ? m.name : 'the tool'),
    result: quote(contentText(m.content, '')),
  }));
}

/** The function the answer calls, or undefined when it answers in text (no function tools, or tool_choice none). */
function toolToCall(body: JsonObject): FunctionTool | undefined {
  const tools = (Array.isArray(body.tools) ? body.tools : [])
    .map((t) => (isObject(t) && t.type === 'function' && isObject(t.function) ? t.function : undefined))
    .filter((f): f is JsonObject & FunctionTool => typeof f?.name === 'string');
  if (tools.length === 0 || body.tool_choice === 'none') return undefined;
  const choice = body.tool_choice;
  const named = isObject(choice) && isObject(choice.function) ? choice.function.name : undefined;
  if (typeof named !== 'string') return tools[0];
  const tool = tools.find((t) => t.name === named);
  if (!tool)
    throw new GatewayError('invalid_request', `tool_choice names the function '${named}', which is not in tools`);
  return tool;
}

/** Same conversation, same function: same id, like the rest of the answer. */
function toolCallId(model: string, messages: Message[], name: string): string {
  return `call_${createHash('sha256')
    .update(JSON.stringify([model, messages, name]))
    .digest('hex')
    .slice(0, 24)}`;
}

/** The JSON text `response_format` asks for, or undefined for plain text. */
function jsonAnswer(format: unknown, text: string, said: string): string | undefined {
  if (!isObject(format)) return undefined;
  if (format.type === 'json_object') return JSON.stringify({ answer: text });
  if (format.type !== 'json_schema') return undefined;
  const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
  return JSON.stringify(sampleFromSchema(schema ?? { type: 'object' }, said));
}

/** JSON cut into four-character pieces (code points), about one token each. */
function slices(json: string): string[] {
  const chars = Array.from(json);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += 4) out.push(chars.slice(i, i + 4).join(''));
  return out;
}

/** Text as words, each after the first with its leading space: joined, they are the text again. */
const words = (text: string) => text.split(' ').map((w, i) => (i === 0 ? w : ` ${w}`));

/** Tool definitions and a response schema are part of the prompt a real provider counts. */
function definitionTokens(body: JsonObject): number {
  let tokens = 0;
  if (Array.isArray(body.tools)) tokens += estimateTextTokens(JSON.stringify(body.tools));
  const format = body.response_format;
  if (isObject(format) && format.type === 'json_schema') tokens += estimateTextTokens(JSON.stringify(format));
  return tokens;
}

export function mockAnswer(model: string, body: JsonObject): MockAnswer {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const said = quote(lastUserText(messages));
  const answersToolResult = messages.at(-1)?.role === 'tool';
  const tool = answersToolResult ? undefined : toolToCall(body);

  let pieces: string[];
  let toolCall: MockAnswer['toolCall'];
  if (tool) {
    const args = sampleFromSchema(tool.parameters ?? { type: 'object' }, said);
    pieces = slices(JSON.stringify(isObject(args) ? args : {}));
    toolCall = { id: toolCallId(model, messages, tool.name), name: tool.name };
  } else {
    const reply = answersToolResult
      ? trailingToolResults(messages)
          .map((r) => `${r.name} returned: "${r.result}"`)
          .join(' ')
      : `You said: "${said}"`;
    const text = `This is ${model}, the svc mock provider. ${reply}`;
    const json = jsonAnswer(body.response_format, text, said);
    pieces = json === undefined ? words(text) : slices(json);
  }

  const kept = pieces.slice(0, outputAllowance(body));
  const prompt = estimateChatPromptTokens(messages) + definitionTokens(body);
  const completion = kept.length + (toolCall ? estimateTextTokens(toolCall.name) : 0);
  return {
    toolCall,
    pieces: kept,
    finishReason: kept.length < pieces.length ? 'length' : toolCall ? 'tool_calls' : 'stop',
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}
