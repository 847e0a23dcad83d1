// OpenAI chat request → Vertex Gemini `GenerateContentRequest` (docs/providers/vertex.md "Request mapping"). Pure;
// throws GatewayError for requests Gemini cannot represent.
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { JsonObject } from '../../../platform/openai/wire-types.ts';
import { geminiSchema } from './gemini-schema.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

type Part = JsonObject;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

const invalid = (message: string) => new GatewayError('invalid_request', message);

/** MIME types of `fileData` URIs, from the extension; Vertex needs one for every file part. */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
};

export interface GeminiRequestOptions {
  /** The deployment's `default_max_tokens`, used when the request sets no output limit. */
  defaultMaxTokens?: number;
}

export function geminiRequest(body: JsonObject, options: GeminiRequestOptions = {}): JsonObject {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const system: Part[] = [];
  const contents: Content[] = [];
  // Gemini function calls carry no id: a `tool` message is matched to its call's function name by tool_call_id.
  const toolNames = new Map<string, string>();
  const push = (role: Content['role'], parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    // Gemini wants alternating turns: consecutive same-role messages become one turn.
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...textParts(m.content));
        break;
      case 'user':
        push('user', userParts(m.content, i));
        break;
      case 'assistant':
        push('model', [...textParts(m.content), ...functionCalls(m.tool_calls, i, toolNames)]);
        break;
      case 'tool':
        push('user', [functionResponse(m, i, toolNames)]);
        break;
      default:
        throw invalid(`messages[${i}].role '${String(m.role)}' is not supported by Vertex Gemini.`);
    }
  });
  const request: JsonObject = { contents };
  if (system.length > 0) request.systemInstruction = { parts: system };
  const generationConfig = generation(body, options);
  if (Object.keys(generationConfig).length > 0) request.generationConfig = generationConfig;
  const declarations = functionDeclarations(body.tools);
  if (declarations.length > 0) request.tools = [{ functionDeclarations: declarations }];
  const toolConfig = functionCallingConfig(body.tool_choice);
  if (toolConfig) request.toolConfig = { functionCallingConfig: toolConfig };
  return request;
}

function textParts(content: unknown): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content
    .filter((p) => isObject(p) && p.type === 'text' && typeof p.text === 'string' && p.text !== '')
    .map((p) => ({ text: p.text }));
}

function userParts(content: unknown, i: number): Part[] {
  if (!Array.isArray(content)) return textParts(content);
  return content.filter(isObject).flatMap((p, j): Part[] => {
    if (p.type === 'text') return textParts([p]);
    if (p.type === 'image_url') {
      const url = isObject(p.image_url) ? p.image_url.url : p.image_url;
      if (typeof url !== 'string') throw invalid(`messages[${i}].content[${j}].image_url.url must be a string.`);
      return [mediaPart(url, i, j)];
    }
    throw invalid(`messages[${i}].content[${j}].type '${String(p.type)}' is not supported by Vertex Gemini.`);
  });
}

function mediaPart(url: string, i: number, j: number): Part {
  const data = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (data) return { inlineData: { mimeType: data[1], data: data[2] } };
  if (/^(https?|gs):\/\//i.test(url)) {
    const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
    return { fileData: { mimeType: MIME_BY_EXTENSION[extension ?? ''] ?? 'image/jpeg', fileUri: url } };
  }
  throw invalid(`messages[${i}].content[${j}].image_url.url must be a base64 data URL or an http(s) or gs:// URL.`);
}

function functionCalls(toolCalls: unknown, i: number, toolNames: Map<string, string>): Part[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.filter(isObject).map((call, j) => {
    const fn = isObject(call.function) ? call.function : {};
    if (typeof fn.name !== 'string') throw invalid(`messages[${i}].tool_calls[${j}].function.name must be a string.`);
    if (typeof call.id === 'string') toolNames.set(call.id, fn.name);
    return { functionCall: { name: fn.name, args: parseArguments(fn.arguments, i, j) } };
  });
}

function parseArguments(raw: unknown, i: number, j: number): JsonObject {
  if (raw === undefined || raw === null || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw invalid(`messages[${i}].tool_calls[${j}].function.arguments is not valid JSON.`);
  }
  if (!isObject(parsed)) throw invalid(`messages[${i}].tool_calls[${j}].function.arguments must be a JSON object.`);
  return parsed;
}

function functionResponse(m: JsonObject, i: number, toolNames: Map<string, string>): Part {
  const name =
    (typeof m.tool_call_id === 'string' ? toolNames.get(m.tool_call_id) : undefined) ??
    (typeof m.name === 'string' ? m.name : undefined);
  if (name === undefined) {
    throw invalid(
      `messages[${i}].tool_call_id '${String(m.tool_call_id)}' matches no tool call of an earlier assistant message.`,
    );
  }
  const text =
    typeof m.content === 'string'
      ? m.content
      : textParts(m.content)
          .map((p) => p.text)
          .join('');
  // A JSON object result goes as it is; anything else under `output`, the key Vertex documents for results.
  let response: JsonObject = { output: text };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isObject(parsed)) response = parsed;
  } catch {
    // Plain text result.
  }
  return { functionResponse: { name, response } };
}

function generation(body: JsonObject, options: GeminiRequestOptions): JsonObject {
  const config: JsonObject = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? options.defaultMaxTokens;
  if (typeof maxTokens === 'number') config.maxOutputTokens = maxTokens;
  const copies: [string, string][] = [
    ['temperature', 'temperature'],
    ['top_p', 'topP'],
    ['top_k', 'topK'],
    ['seed', 'seed'],
    ['presence_penalty', 'presencePenalty'],
    ['frequency_penalty', 'frequencyPenalty'],
    ['n', 'candidateCount'],
  ];
  for (const [from, to] of copies) if (typeof body[from] === 'number') config[to] = body[from];
  if (typeof body.stop === 'string') config.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) config.stopSequences = body.stop;
  const format = isObject(body.response_format) ? body.response_format : undefined;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
    if (isObject(schema)) config.responseSchema = geminiSchema(schema);
  }
  return config;
}

function functionDeclarations(tools: unknown): JsonObject[] {
  if (!Array.isArray(tools)) return [];
  return tools
    .filter((t) => isObject(t) && t.type === 'function' && isObject(t.function))
    .map((t) => {
      const fn = (t as JsonObject).function as JsonObject;
      return {
        name: fn.name,
        ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
        ...(isObject(fn.parameters) ? { parameters: geminiSchema(fn.parameters) } : {}),
      };
    });
}

function functionCallingConfig(choice: unknown): JsonObject | undefined {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'required') return { mode: 'ANY' };
  if (choice === 'none') return { mode: 'NONE' };
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') {
    return { mode: 'ANY', allowedFunctionNames: [choice.function.name] };
  }
  return undefined;
}
