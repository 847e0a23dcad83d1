// The house rules (scripts/structure/house-rules.ts) hold on the tree: plugins import only the contract, no import
// runs up a band or between the gateway and the observability service, every unit has a band, no units loop. The
// same check on a planted tree names each break, so it can fail.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { houseRuleBreaks } from '../../scripts/structure/house-rules.ts';
import { ROOT } from '../helpers/cli.ts';

t.test('the tree keeps the house rules', async (t) => {
  t.same(houseRuleBreaks(ROOT), []);
});

const PLANTED: Record<string, string> = {
  // The ground imports the gateway, which imports it back: an upward import and a loop.
  'src/platform/config/defaults.ts':
    "import { route } from '../../gateway/server/routes.ts';\nexport const d = route;\n",
  'src/gateway/server/routes.ts':
    "import type { } from '../../platform/config/defaults.ts';\nexport const route = 1;\n",
  // The gateway imports the observability service.
  'src/gateway/pipeline/run.ts':
    "import { ingest } from '../../observability/ingestion/ingest.ts';\nexport const r = ingest;\n",
  'src/observability/ingestion/ingest.ts': 'export const ingest = 1;\n',
  'src/plugin-api/index.ts': 'export const definePlugin = (d: object) => d;\n',
  // The example custom plugin imports the store past the contract; a built-in imports another built-in.
  'examples/plugins/audit/index.ts':
    "import { d } from '../../../src/platform/config/defaults.ts';\nexport default d;\n",
  'plugins/budget/index.ts': "import { limit } from '../rate-limit/limit.ts';\nexport default limit;\n",
  'plugins/rate-limit/limit.ts':
    "import { definePlugin } from '../../src/plugin-api/index.ts';\nexport const limit = definePlugin;\n",
  'src/somewhere/new.ts': 'export const n = 1;\n',
};

t.test('a planted tree: each break is named', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'house-rules-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(PLANTED)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  t.same(houseRuleBreaks(root).sort(), [
    'examples/plugins/audit/index.ts imports src/platform/config/defaults.ts (value): a plugin imports only src/plugin-api/index.ts (svc/plugin)',
    'plugins/budget/index.ts imports plugins/rate-limit/limit.ts (value): a plugin imports only src/plugin-api/index.ts (svc/plugin)',
    'src/gateway/pipeline/ (gateway) imports src/observability/ingestion/ (observability): 1 import(s) run sideways',
    'src/platform/config/ (ground) imports src/gateway/server/ (gateway): 1 import(s) run up',
    'src/somewhere/ has no band: name it in scripts/structure/bands.ts',
    'units import each other in a loop: src/gateway/server/, src/platform/config/',
  ]);
});
