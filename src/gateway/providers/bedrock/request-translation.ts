// OpenAI chat request → Bedrock Converse request body (docs/providers/bedrock.md "Request mapping").
import type { DeploymentConfig } from '../../../platform/config/types.ts';
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { JsonObject } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

type Block = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Used when neither the request nor the deployment sets an output limit: Converse needs none, but the budget does. */
export const DEFAULT_MAX_TOKENS = 4096;

const IMAGE_FORMATS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function invalid(message: string, param: string): never {
  throw new GatewayError('invalid_request', message, { details: { param } });
}

/** Text of a string or an array of `{type:"text"}` parts; other part types are ignored here. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}

// Converse rejects empty and whitespace-only text blocks.
const hasText = (text: string) => text.trim().length > 0;

function imageBlock(url: string, param: string): Block {
  if (!url.startsWith('data:')) {
    invalid(
      'AWS Bedrock cannot fetch image URLs: send the image inline as a data: URL (data:image/png;base64,...).',
      param,
    );
  }
  const match = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!match) invalid('The image data URL is malformed.', param);
  const mime = match[1].toLowerCase();
  const format = IMAGE_FORMATS[mime];
  if (!format) invalid(`AWS Bedrock accepts png, jpeg, gif and webp images, not '${mime}'.`, param);
  const isBase64 = match[2].split(';').includes('base64');
  const bytes = isBase64 ? match[3] : Buffer.from(decodeURIComponent(match[3]), 'utf8').toString('base64');
  return { image: { format, source: { bytes } } };
}

function userBlocks(content: unknown, param: string): Block[] {
  if (typeof content === 'string') return hasText(content) ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  content.forEach((part, i) => {
    if (!isObject(part)) return;
    if (part.type === 'text' && typeof part.text === 'string' && hasText(part.text)) blocks.push({ text: part.text });
    else if (part.type === 'image_url') {
      const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
      if (typeof url !== 'string') invalid('image_url.url must be a string.', `${param}[${i}].image_url`);
      blocks.push(imageBlock(url, `${param}[${i}].image_url.url`));
    }
  });
  return blocks;
}

function toolUseBlock(call: unknown, param: string): Block {
  if (!isObject(call) || !isObject(call.function) || typeof call.function.name !== 'string') {
    invalid('tool_calls entries need function.name.', param);
  }
  const raw = call.function.arguments;
  let input: unknown = {};
  if (typeof raw === 'string' && raw.trim() !== '') {
    try {
      input = JSON.parse(raw);
    } catch {
      invalid('tool_calls function.arguments is not valid JSON.', `${param}.function.arguments`);
    }
  } else if (isObject(raw)) input = raw;
  if (!isObject(input)) invalid('tool_calls function.arguments must be a JSON object.', `${param}.function.arguments`);
  return { toolUse: { toolUseId: String(call.id ?? ''), name: call.function.name, input } };
}

function toolResultBlock(message: Record<string, unknown>, param: string): Block {
  if (typeof message.tool_call_id !== 'string') invalid('tool messages need tool_call_id.', `${param}.tool_call_id`);
  const text = textOf(message.content);
  // An empty result must be an empty content list: Converse rejects an empty text block.
  return { toolResult: { toolUseId: message.tool_call_id, content: hasText(text) ? [{ text }] : [] } };
}

/** Messages to Converse turns; consecutive turns of the same role are merged (Converse requires alternation). */
function conversation(messages: unknown[]): { system: Block[]; turns: Turn[]; hasToolBlocks: boolean } {
  const system: Block[] = [];
  const turns: Turn[] = [];
  let hasToolBlocks = false;
  const push = (role: Turn['role'], content: Block[]) => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  messages.forEach((m, i) => {
    if (!isObject(m)) return;
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer': {
        const text = textOf(m.content);
        if (hasText(text)) system.push({ text });
        break;
      }
      case 'user':
        push('user', userBlocks(m.content, `${param}.content`));
        break;
      case 'assistant': {
        const text = textOf(m.content);
        const blocks: Block[] = hasText(text) ? [{ text }] : [];
        if (Array.isArray(m.tool_calls)) {
          m.tool_calls.forEach((c, k) => blocks.push(toolUseBlock(c, `${param}.tool_calls[${k}]`)));
          hasToolBlocks ||= m.tool_calls.length > 0;
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
        push('user', [toolResultBlock(m, param)]);
        hasToolBlocks = true;
        break;
      default:
        invalid(`AWS Bedrock deployments do not support messages with role '${String(m.role)}'.`, `${param}.role`);
    }
  });
  return { system, turns, hasToolBlocks };
}

function toolChoice(choice: unknown): Block | undefined {
  if (choice === 'auto' || choice === undefined) return choice === 'auto' ? { auto: {} } : undefined;
  if (choice === 'required') return { any: {} };
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') {
    return { tool: { name: choice.function.name } };
  }
  return undefined;
}

function toolConfig(body: JsonObject, hasToolBlocks: boolean): Block | undefined {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return undefined;
  const none = body.tool_choice === 'none';
  // Converse has no "none": tools are left out, unless the history holds tool blocks, which Converse only
  // accepts with a toolConfig present; then the specs stay and no choice is forced.
  if (none && !hasToolBlocks) return undefined;
  const tools = body.tools.map((t, i) => {
    const fn = isObject(t) && isObject(t.function) ? t.function : undefined;
    if (!fn || typeof fn.name !== 'string') invalid('tools entries need function.name.', `tools[${i}].function.name`);
    const schema = isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} };
    return {
      toolSpec: {
        name: fn.name,
        ...(typeof fn.description === 'string' && fn.description !== '' ? { description: fn.description } : {}),
        inputSchema: { json: schema },
      },
    };
  });
  const choice = none ? undefined : toolChoice(body.tool_choice);
  return { tools, ...(choice ? { toolChoice: choice } : {}) };
}

function inferenceConfig(body: JsonObject, deployment: DeploymentConfig): Block {
  const requested = body.max_completion_tokens ?? body.max_tokens;
  const config: Block = {
    maxTokens: typeof requested === 'number' ? requested : (deployment.default_max_tokens ?? DEFAULT_MAX_TOKENS),
  };
  if (typeof body.temperature === 'number') config.temperature = body.temperature;
  if (typeof body.top_p === 'number') config.topP = body.top_p;
  const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  const sequences = stop.filter((s): s is string => typeof s === 'string' && s !== '');
  if (sequences.length > 0) config.stopSequences = sequences;
  return config;
}

/** The Converse / ConverseStream body for a validated OpenAI chat body. Throws GatewayError invalid_request. */
export function converseRequest(body: JsonObject, deployment: DeploymentConfig): JsonObject {
  const { system, turns, hasToolBlocks } = conversation(Array.isArray(body.messages) ? body.messages : []);
  const tools = toolConfig(body, hasToolBlocks);
  return {
    messages: turns,
    ...(system.length > 0 ? { system } : {}),
    inferenceConfig: inferenceConfig(body, deployment),
    ...(tools ? { toolConfig: tools } : {}),
  };
}
