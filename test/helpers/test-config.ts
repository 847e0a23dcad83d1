// The config tests start from: one mock group `demo` and one key `TEST_KEY` granted it. Kept apart from the service
// starter so plugin-level tests can build configs without loading the service.

export const TEST_KEY = 'sk-test-key-0123456789abcdef';

/** The mock group `demo` with its one deployment `demo-mock`; `deployment` overrides or adds its fields. */
export function demoGroup(deployment: Record<string, unknown> = {}) {
  return {
    name: 'demo',
    created_at: '2026-11-21T00:00:00Z',
    deployments: [
      {
        id: 'demo-mock',
        provider: 'mock',
        model: 'mock-small',
        price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
        ...deployment,
      },
    ],
  };
}

/** A minimal valid config: one mock group `demo` and one key `TEST_KEY` granted it. Override any part. */
export function baseConfig(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    version: 1,
    server: { host: '127.0.0.1', port: 0, admin_port: 0 },
    projects: [{ id: 'default', name: 'Default' }],
    model_groups: [demoGroup()],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] }],
    plugins: [{ use: 'auth' }, { use: 'router' }],
    ...overrides,
  };
}

/** An OpenAI-compatible deployment pointing at a fake upstream. */
export function openaiDeployment(id: string, url: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    provider: 'openai',
    base_url: `${url}/v1`,
    api_key: `upstream-key-${id}`,
    model: `model-${id}`,
    ...extra,
  };
}

export const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'demo',
  messages: [{ role: 'user', content: 'Hello' }],
  ...extra,
});
