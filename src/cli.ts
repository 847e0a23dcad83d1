#!/usr/bin/env node
// `svc start` and `svc validate`: the operator's entry points.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, formatIssue } from './config/config-error.ts';
import { loadConfigFile } from './config/load-config.ts';
import { resolvePlugins } from './pipeline/load-pipeline.ts';
import { startService } from './service.ts';

const USAGE = `usage:
  svc start [--config FILE] [--port N] [--admin-port N]   run the gateway and admin listeners
  svc validate [FILE]                                    check a gateway.yaml (exit 0 valid, 1 invalid)
  svc --version`;

function portOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`svc: --${name} must be an integer from 0 to 65535`);
    process.exit(2);
  }
  return port;
}

async function validate(file: string): Promise<number> {
  try {
    const loaded = await loadConfigFile(file, process.env);
    await resolvePlugins(loaded);
    for (const w of loaded.warnings) console.log(`warning: ${w}`);
    console.log(`${file}: valid`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`${file}: invalid`);
    for (const issue of err.issues) console.error(`  ${formatIssue(issue)}`);
    return 1;
  }
}

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string', short: 'c', default: 'gateway.yaml' }, port: { type: 'string' }, 'admin-port': { type: 'string' } },
  });
  let service;
  try {
    service = await startService({
      configPath: values.config,
      port: portOption(values.port, 'port'),
      adminPort: portOption(values['admin-port'], 'admin-port'),
      onGeneratedKey: (g) => console.log(`Generated gateway key for '${g.alias}' (shown once; keep it): ${g.key}`),
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`svc: cannot start, ${values.config} is invalid:`);
      for (const issue of err.issues) console.error(`  ${formatIssue(issue)}`);
      process.exit(1);
    }
    throw err;
  }
  console.log(`svc gateway listening on ${service.gatewayUrl}/v1, admin on ${service.adminUrl}`);
  process.on('SIGHUP', () => void service.reload());
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`svc: ${signal} received, draining`);
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      return start(rest);
    case 'validate': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      process.exit(await validate(positionals[0] ?? 'gateway.yaml'));
      break;
    }
    case '--version':
    case '-v': {
      // From dist/src/cli.js or, run from source, src/cli.ts.
      const from = import.meta.url.includes('/dist/') ? '../../package.json' : '../package.json';
      const pkg = JSON.parse(readFileSync(new URL(from, import.meta.url), 'utf8')) as { version: string };
      console.log(pkg.version);
      return;
    }
    case undefined:
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      console.error(`svc: unknown command '${command}'\n${USAGE}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
