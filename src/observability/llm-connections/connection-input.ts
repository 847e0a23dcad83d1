// PUT /api/public/llm-connections: adapter rules the body schema cannot say (docs/public-api.md
// "LLM connections — /api/public/llm-connections"), and the row to store with the secret and the extra header values
// sealed. A PUT replaces the connection: absent fields take their defaults.
import { isObject } from '../../platform/validation/json-object.ts';
import type { ValidationIssue } from '../../platform/validation/validation-issue.ts';
import type { SecretBox } from '../../platform/secrets/secret-box.ts';
import type { LlmConnectionRow } from '../../platform/store/repos/llm-connections.ts';

export type Adapter = 'anthropic' | 'openai' | 'azure' | 'bedrock' | 'google-vertex-ai' | 'google-ai-studio';

export interface ConnectionBody {
  provider: string;
  adapter: Adapter;
  secretKey: string;
  baseURL?: string | null;
  customModels?: string[] | null;
  withDefaultModels?: boolean | null;
  extraHeaders?: Record<string, string> | null;
  config?: Record<string, unknown> | null;
}

const jsonObject = (text: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
};

const nonEmpty = (v: unknown) => typeof v === 'string' && v !== '';

function adapterIssues(b: ConnectionBody): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (b.adapter === 'bedrock') {
    if (!nonEmpty(b.config?.region))
      issues.push({ path: ['config', 'region'], message: 'is required for the bedrock adapter (an AWS region)' });
    const credentials = jsonObject(b.secretKey);
    if (!credentials || !nonEmpty(credentials.accessKeyId) || !nonEmpty(credentials.secretAccessKey)) {
      issues.push({
        path: ['secretKey'],
        message: 'must be JSON credentials {"accessKeyId", "secretAccessKey"} for the bedrock adapter',
      });
    }
  } else if (b.adapter === 'google-vertex-ai') {
    if (!jsonObject(b.secretKey))
      issues.push({
        path: ['secretKey'],
        message: 'must be a service account key (JSON) for the google-vertex-ai adapter',
      });
  } else if (b.config != null) {
    issues.push({ path: ['config'], message: 'is only for the bedrock and google-vertex-ai adapters' });
  }
  return issues;
}

/** `...` and the last four characters: enough to tell keys apart, never enough to use one. A short secret shows none. */
export const displaySecret = (secret: string) => (secret.length >= 12 ? `...${secret.slice(-4)}` : '...');

export function connectionRowOf(
  projectId: string,
  id: string,
  b: ConnectionBody,
  box: SecretBox,
): { row: LlmConnectionRow } | { issues: ValidationIssue[] } {
  const issues = adapterIssues(b);
  if (issues.length > 0) return { issues };
  const headers = b.extraHeaders ?? {};
  return {
    row: {
      id,
      projectId,
      provider: b.provider,
      adapter: b.adapter,
      secretKeyEncrypted: box.seal(b.secretKey),
      displaySecretKey: displaySecret(b.secretKey),
      baseUrl: b.baseURL ?? null,
      customModels: b.customModels ?? [],
      withDefaultModels: b.withDefaultModels ?? true,
      extraHeadersEncrypted: Object.keys(headers).length > 0 ? box.seal(JSON.stringify(headers)) : null,
      extraHeaderKeys: Object.keys(headers),
      config: b.config ?? null,
    },
  };
}
