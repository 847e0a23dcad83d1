// A span's observation type (the framework-independent rules of Langfuse's OTel intake): the explicit
// Langfuse type, then OpenInference's span kind, then gen_ai.operation.name, then tool and model hints; else SPAN.
import { firstOf, type Attributes } from './attribute-values.ts';

const LANGFUSE_TYPES = new Set([
  'span',
  'generation',
  'event',
  'embedding',
  'agent',
  'tool',
  'chain',
  'retriever',
  'guardrail',
  'evaluator',
]);

const OPENINFERENCE_KINDS: Record<string, string> = {
  LLM: 'GENERATION',
  CHAIN: 'CHAIN',
  RETRIEVER: 'RETRIEVER',
  EMBEDDING: 'EMBEDDING',
  AGENT: 'AGENT',
  TOOL: 'TOOL',
  GUARDRAIL: 'GUARDRAIL',
  EVALUATOR: 'EVALUATOR',
};

const GEN_AI_OPERATIONS: Record<string, string> = {
  chat: 'GENERATION',
  completion: 'GENERATION',
  text_completion: 'GENERATION',
  generate_content: 'GENERATION',
  generate: 'GENERATION',
  embeddings: 'EMBEDDING',
  invoke_agent: 'AGENT',
  create_agent: 'AGENT',
  execute_tool: 'TOOL',
};

export const MODEL_KEYS = [
  'langfuse.observation.model.name',
  'gen_ai.response.model',
  'gen_ai.request.model',
  'llm.model_name',
  'model',
] as const;

export function observationTypeOf(attrs: Attributes): string {
  const explicit = attrs['langfuse.observation.type'];
  if (typeof explicit === 'string' && LANGFUSE_TYPES.has(explicit)) return explicit.toUpperCase();
  const kind = attrs['openinference.span.kind'];
  if (typeof kind === 'string' && OPENINFERENCE_KINDS[kind.toUpperCase()])
    return OPENINFERENCE_KINDS[kind.toUpperCase()];
  const operation = attrs['gen_ai.operation.name'];
  if (typeof operation === 'string' && GEN_AI_OPERATIONS[operation]) return GEN_AI_OPERATIONS[operation];
  if (firstOf(attrs, ['gen_ai.tool.name', 'gen_ai.tool.call.id']) !== undefined) return 'TOOL';
  if (firstOf(attrs, MODEL_KEYS) !== undefined) return 'GENERATION';
  return 'SPAN';
}
