// Datasets under /api/public: datasets, their items, and run items that link a trace to a dataset run.
import type { HttpClient } from './http.ts';

export interface Page<T> {
  data: T[];
  meta: { page: number; limit: number; totalItems: number; totalPages: number };
}

export interface Dataset {
  id: string;
  name: string;
  description: string | null;
  metadata: unknown;
  inputSchema: unknown;
  expectedOutputSchema: unknown;
  projectId: string;
  createdAt: string;
  updatedAt: string;
}

export interface DatasetItem {
  id: string;
  status: 'ACTIVE' | 'ARCHIVED';
  input: unknown;
  expectedOutput: unknown;
  metadata: unknown;
  sourceTraceId: string | null;
  sourceObservationId: string | null;
  datasetId: string;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
}

export interface DatasetRunItem {
  id: string;
  datasetRunId: string;
  datasetRunName: string;
  datasetItemId: string;
  traceId: string;
  observationId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DatasetRun {
  id: string;
  name: string;
  description: string | null;
  metadata: unknown;
  datasetId: string;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
  /** Newest first. */
  datasetRunItems: DatasetRunItem[];
}

export interface CreateDatasetBody {
  name: string;
  description?: string;
  metadata?: unknown;
  /** JSON Schema the items' input must follow. */
  inputSchema?: Record<string, unknown>;
  expectedOutputSchema?: Record<string, unknown>;
}

export interface CreateDatasetItemBody {
  datasetName: string;
  /** Give an id to update that item (upsert); default: a new item. */
  id?: string;
  input?: unknown;
  expectedOutput?: unknown;
  metadata?: unknown;
  sourceTraceId?: string;
  sourceObservationId?: string;
  status?: 'ACTIVE' | 'ARCHIVED';
}

export interface ListDatasetItemsQuery {
  datasetName: string;
  sourceTraceId?: string;
  sourceObservationId?: string;
  /** From 1. */
  page?: number;
  /** 1..100, default 50. */
  limit?: number;
}

export interface CreateRunItemBody {
  /** The run, created in the item's dataset when new. */
  runName: string;
  runDescription?: string;
  metadata?: unknown;
  datasetItemId: string;
  /** The trace that ran the item (or give `observationId`). */
  traceId?: string;
  observationId?: string;
}

const segment = encodeURIComponent;

export class DatasetsClient {
  readonly #http: HttpClient;

  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** Creates the dataset, or updates the one of that name. */
  create(body: CreateDatasetBody): Promise<Dataset> {
    return this.#http.request('POST', '/api/public/v2/datasets', { body });
  }

  get(name: string): Promise<Dataset> {
    return this.#http.request('GET', `/api/public/v2/datasets/${segment(name)}`);
  }

  /** Creates an item, or updates the item with the given `id`. */
  createItem(body: CreateDatasetItemBody): Promise<DatasetItem> {
    return this.#http.request('POST', '/api/public/dataset-items', { body });
  }

  /** Active items of a dataset, newest first. */
  listItems(query: ListDatasetItemsQuery): Promise<Page<DatasetItem>> {
    return this.#http.request('GET', '/api/public/dataset-items', { query: { ...query } });
  }

  /** Links a trace (or observation) to a run of the item's dataset: the item was run and this trace is the result. */
  createRunItem(body: CreateRunItemBody): Promise<DatasetRunItem> {
    return this.#http.request('POST', '/api/public/dataset-run-items', { body });
  }

  /** A run with its items. */
  getRun(datasetName: string, runName: string): Promise<DatasetRun> {
    return this.#http.request('GET', `/api/public/datasets/${segment(datasetName)}/runs/${segment(runName)}`);
  }
}
