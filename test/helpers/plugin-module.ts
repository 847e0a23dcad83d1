// A throwaway plugin module for a test that starts a service with it: written to a temporary directory that goes
// when the test ends. Its source gets the file URL of the gateway's GatewayError module to import.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The URL a plugin module imports GatewayError from. */
export const GATEWAY_ERROR_URL = pathToFileURL(
  join(import.meta.dirname, '../../src/platform/errors/gateway-error.ts'),
).href;

/** Writes `source(GATEWAY_ERROR_URL)` as `<name>.mjs` in a fresh temporary directory; returns its path. */
export function pluginModule(
  t: { teardown(fn: () => unknown): void },
  name: string,
  source: (gatewayErrorUrl: string) => string,
): string {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, `${name}.mjs`);
  writeFileSync(path, source(GATEWAY_ERROR_URL));
  return path;
}
