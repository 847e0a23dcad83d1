// The named tasks worker threads run (docs/architecture.md "Off the request path"): pure functions of plain data.
export { scanText } from '../../gateway/guardrails/scan-task.ts';
export { signJwt } from './jwt-sign-task.ts';
export { sigv4PayloadHash } from './sigv4-payload-hash-task.ts';
export { signWebhookBodies } from './webhook-sign-task.ts';
