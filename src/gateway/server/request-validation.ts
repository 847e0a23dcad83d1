// OpenAI-shape checks of request bodies (400 invalid_request), compiled once with ajv.
import type { ErrorObject } from 'ajv';
import chatSchema from '../../../schemas/openai/chat-completions.request.json' with { type: 'json' };
import embeddingsSchema from '../../../schemas/openai/embeddings.request.json' with { type: 'json' };
import { yamlPath } from '../../platform/config/config-error.ts';
import { createAjv } from '../../platform/validation/ajv.ts';
import { describeAjvError, ISSUE_WORDING, type Wording } from '../../platform/validation/ajv-errors.ts';

const ajv = createAjv();
const validators = { chat: ajv.compile(chatSchema), embeddings: ajv.compile(embeddingsSchema) };

/** The gateway's words for the checks OpenAI clients trip most; any other keyword keeps ajv's message. */
const GATEWAY_WORDING: Wording = {
  required: ISSUE_WORDING.required,
  anyOf: () => 'must be a non-empty string, array of strings, array of tokens or array of token arrays',
  minItems: () => 'must be a non-empty array',
  minLength: () => 'must not be empty',
};

function describe(err: ErrorObject): string {
  const { path, message } = describeAjvError(err, GATEWAY_WORDING);
  return `${path.length === 0 ? 'body' : `'${yamlPath(path)}'`} ${message}`;
}

/** The first problem with the body, or undefined when it is acceptable. */
export function validateRequestBody(route: 'chat' | 'embeddings', body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the request body must be a JSON object';
  const validate = validators[route];
  if (validate(body)) return undefined;
  return describe(validate.errors![0]);
}
