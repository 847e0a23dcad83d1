// A chat prompt of three versions created through the public API, and generations linked to its versions sent through
// the Langfuse ingestion API (promptName/promptVersion), for the dashboard's prompt pages and routes.
import type { Queryable } from '../../src/platform/store/database.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { basicAuth, ingest } from './public-api.ts';

export const TRIAGE = 'support/triage';

const SYSTEM_V1 = 'You are a support bot.\nAnswer briefly.';
const SYSTEM_V2 = 'You are a support bot.\nAnswer briefly and kindly.\nCite the help center.';
const USER = { role: 'user', content: '{{question}}' };

/** The versions in order: v1 holds production, v3 (the newest) staging. */
export const TRIAGE_VERSIONS = [
  {
    prompt: [{ role: 'system', content: SYSTEM_V1 }, USER],
    config: { temperature: 0.2 },
    labels: ['production'],
  },
  {
    prompt: [{ role: 'system', content: SYSTEM_V2 }, USER],
    config: { temperature: 0.2, model: 'gpt-4o-mini' },
    commitMessage: 'kinder, with sources',
  },
  {
    prompt: [
      { role: 'system', content: SYSTEM_V2 },
      { role: 'assistant', content: 'Example: see help.example.com/refunds' },
      USER,
    ],
    config: { temperature: 0.2, model: 'gpt-4o-mini' },
    labels: ['staging'],
    commitMessage: 'one worked example',
  },
];

type Key = Parameters<typeof basicAuth>[0];

async function createTriageVersions(adminUrl: string, key: Key): Promise<void> {
  for (const v of TRIAGE_VERSIONS) {
    const res = await fetch(`${adminUrl}/api/public/v2/prompts`, {
      method: 'POST',
      headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: TRIAGE, type: 'chat', ...v }),
    });
    if (res.status !== 201) throw new Error(`creating a version answered ${res.status}: ${await res.text()}`);
  }
}

export interface LinkedGeneration {
  version: number;
  durationMs: number;
  input: number;
  output: number;
  cost: number;
}

/** v1: three generations (p50 2 s, mean 3 s), v2: one, v3: none. Costs are exact in binary. */
export const TRIAGE_GENERATIONS: LinkedGeneration[] = [
  { version: 1, durationMs: 1000, input: 10, output: 5, cost: 0.25 },
  { version: 1, durationMs: 2000, input: 20, output: 10, cost: 0.5 },
  { version: 1, durationMs: 6000, input: 30, output: 15, cost: 0.125 },
  { version: 2, durationMs: 1500, input: 40, output: 20, cost: 0.0625 },
];

/** Each generation in a trace of its own (`triage-<i>`), a minute apart, the first an hour ago. */
async function sendTriageGenerations(adminUrl: string, key: Key): Promise<void> {
  const base = Date.now() - 3_600_000;
  const at = (ms: number) => new Date(base + ms).toISOString();
  const batch = TRIAGE_GENERATIONS.flatMap((g, i) => [
    {
      id: `e-triage-${i}`,
      type: 'trace-create',
      timestamp: at(i * 60_000),
      body: { id: `triage-${i}`, name: `triage ${i}`, timestamp: at(i * 60_000) },
    },
    {
      id: `e-triage-${i}-gen`,
      type: 'generation-create',
      timestamp: at(i * 60_000),
      body: {
        id: `triage-${i}-gen`,
        traceId: `triage-${i}`,
        name: `answer ${i}`,
        startTime: at(i * 60_000),
        endTime: at(i * 60_000 + g.durationMs),
        model: 'gpt-4o-mini',
        usageDetails: { input: g.input, output: g.output },
        costDetails: { total: g.cost },
        promptName: TRIAGE,
        promptVersion: g.version,
      },
    },
  ]);
  await ingest(adminUrl, key, batch);
}

/** A key of project `default`, the three versions made with it, then the generations; answers the key. */
export async function seedTriage(s: { adminUrl: string; service: { db: Queryable } }) {
  const key = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  await createTriageVersions(s.adminUrl, key);
  await sendTriageGenerations(s.adminUrl, key);
  return key;
}
