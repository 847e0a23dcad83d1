// OpenAI-shape checks of request bodies (400 invalid_request), compiled once with ajv.
import { Ajv, type ErrorObject } from 'ajv';
import chatSchema from '../../schemas/openai/chat-completions.request.json' with { type: 'json' };
import embeddingsSchema from '../../schemas/openai/embeddings.request.json' with { type: 'json' };
import { yamlPath } from '../config/config-error.ts';

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = { chat: ajv.compile(chatSchema), embeddings: ajv.compile(embeddingsSchema) };

function describe(err: ErrorObject): string {
  const segments = err.instancePath === '' ? [] : err.instancePath.slice(1).split('/');
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty: string }).missingProperty;
    return `'${yamlPath([...segments, missing])}' is required`;
  }
  const where = segments.length === 0 ? 'body' : `'${yamlPath(segments)}'`;
  if (err.keyword === 'anyOf')
    return `${where} must be a non-empty string, array of strings, array of tokens or array of token arrays`;
  if (err.keyword === 'minItems') return `${where} must be a non-empty array`;
  if (err.keyword === 'minLength') return `${where} must not be empty`;
  return `${where} ${err.message ?? 'is invalid'}`;
}

/** The first problem with the body, or undefined when it is acceptable. */
export function validateRequestBody(route: 'chat' | 'embeddings', body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the request body must be a JSON object';
  const validate = validators[route];
  if (validate(body)) return undefined;
  return describe(validate.errors![0]);
}
