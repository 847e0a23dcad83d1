// svc-sdk: the REST client for prompts, datasets and scores. Tracing is in `svc-sdk/tracing`, the gateway-linked
// OpenAI client in `svc-sdk/openai`.
export { SvcClient, type SvcClientOptions } from './client.ts';
export type { ConnectionOptions } from './config.ts';
export { SvcApiError, SvcConfigError, SvcConnectionError, SvcError, SvcTimeoutError } from './errors.ts';
export {
  ChatPrompt,
  PromptsClient,
  TextPrompt,
  type ChatEntry,
  type ChatMessage,
  type ChatPlaceholder,
  type CreatePromptBody,
  type GetPromptOptions,
  type Prompt,
  type PromptVariables,
} from './prompts.ts';
export {
  DatasetsClient,
  type CreateDatasetBody,
  type CreateDatasetItemBody,
  type CreateRunItemBody,
  type Dataset,
  type DatasetItem,
  type DatasetRun,
  type DatasetRunItem,
  type ListDatasetItemsQuery,
  type Page,
} from './datasets.ts';
export { ScoresClient, type CreateScoreBody, type Score, type ScoreDataType } from './scores.ts';
