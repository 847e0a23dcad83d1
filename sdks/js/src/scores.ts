// Scores under /api/public/scores: numeric, categorical and boolean values on a trace, observation or session.
import type { HttpClient } from './http.ts';

export type ScoreDataType = 'NUMERIC' | 'CATEGORICAL' | 'BOOLEAN' | 'TEXT';

export interface CreateScoreBody {
  name: string;
  /** A number (NUMERIC), a string (CATEGORICAL, or TEXT with `dataType`), or a boolean (BOOLEAN, sent as 1 or 0). */
  value: number | string | boolean;
  /** Default: from the value, or the score config's. */
  dataType?: ScoreDataType;
  /** Exactly one target: a trace (optionally one of its observations), a session or a dataset run. */
  traceId?: string;
  observationId?: string;
  sessionId?: string;
  datasetRunId?: string;
  /** A score config of the project: the score takes its name and data type and must fit its range or categories. */
  configId?: string;
  comment?: string;
  metadata?: Record<string, unknown>;
  /** Give an id to update that score (upsert). */
  id?: string;
  environment?: string;
  timestamp?: Date | string;
}

export interface Score {
  id: string;
  projectId: string;
  traceId: string | null;
  observationId: string | null;
  sessionId: string | null;
  datasetRunId: string | null;
  name: string;
  dataType: ScoreDataType;
  value: number;
  /** The category, `True`/`False`, or the text; absent on NUMERIC scores. */
  stringValue?: string | null;
  source: string;
  comment: string | null;
  metadata: Record<string, unknown>;
  configId: string | null;
  environment: string;
  timestamp: string;
  createdAt: string;
  updatedAt: string;
}

export class ScoresClient {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** Records a score; answers its id. */
  create(body: CreateScoreBody): Promise<{ id: string }> {
    const { value, timestamp, ...rest } = body;
    const wire: Record<string, unknown> = { ...rest, value: typeof value === 'boolean' ? (value ? 1 : 0) : value };
    if (typeof value === 'boolean' && body.dataType === undefined) wire.dataType = 'BOOLEAN';
    if (timestamp !== undefined) wire.timestamp = timestamp instanceof Date ? timestamp.toISOString() : timestamp;
    return this.#http.request('POST', '/api/public/scores', { body: wire });
  }

  get(id: string): Promise<Score> {
    return this.#http.request('GET', `/api/public/v2/scores/${encodeURIComponent(id)}`);
  }
}
