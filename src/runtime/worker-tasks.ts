// The service's worker tasks, each in a module beside its owner: their names, inputs and outputs, declared into the
// pool's WorkerTasks, and the module a thread loads to run each (createWorkerPool takes WORKER_TASK_FILES).
import type { scanText } from '../../plugins/guardrails/detectors/scan-task.ts';
import type { signWebhookBodies } from '../observability/webhooks/webhook-sign-task.ts';
import type { jsonBytes } from '../platform/workers/json-bytes-task.ts';
import type { signJwt } from '../platform/workers/jwt-sign-task.ts';
import { moduleBeside } from '../platform/workers/module-beside.ts';
import type { TaskFiles } from '../platform/workers/pool.ts';
import type { sigv4PayloadHash } from '../platform/workers/sigv4-payload-hash-task.ts';

declare module '../platform/workers/pool.ts' {
  interface WorkerTasks {
    scanText: typeof scanText;
    jsonBytes: typeof jsonBytes;
    signJwt: typeof signJwt;
    sigv4PayloadHash: typeof sigv4PayloadHash;
    signWebhookBodies: typeof signWebhookBodies;
  }
}

const file = (path: string) => moduleBeside(import.meta.url, path).href;

export const WORKER_TASK_FILES: TaskFiles = {
  scanText: file('../../plugins/guardrails/detectors/scan-task'),
  jsonBytes: file('../platform/workers/json-bytes-task'),
  signJwt: file('../platform/workers/jwt-sign-task'),
  sigv4PayloadHash: file('../platform/workers/sigv4-payload-hash-task'),
  signWebhookBodies: file('../observability/webhooks/webhook-sign-task'),
};
