// The named tasks worker threads run (ARCHITECTURE.md section 4): pure functions of plain data.
export { scanText } from '../guardrails/scan-task.ts';
