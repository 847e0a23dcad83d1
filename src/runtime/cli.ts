#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=32768 node --max-semi-space-size=2 --heap-growing-percent=50
// `svc start`, `svc validate` and the store commands: the operator's entry points.
// How the process starts (here and in package.json's start script), each for the resident memory of a replica under
// load (docs/performance.md, "Memory of a gateway replica, second pass"):
// - MALLOC_MMAP_THRESHOLD_=32768: glibc gives blocks of 32 KB and more their own mapping, returned on free. Without it
//   the optimising compilers' working memory (freed segments of 32 KB) stays in glibc's arenas: about 25 MB.
// - --max-semi-space-size=2: the young generation of every thread (serving thread, gateway threads, trace writer)
//   keeps two 2 MB semi-spaces instead of growing to 64 MB under load.
// - --heap-growing-percent=50: the old generation is collected at 1.5 times what the last full collection kept
//   instead of growing to several times it under load.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { ConfigError, formatIssue } from '../platform/config/config-error.ts';
import { inspectConfigFile } from '../platform/config/load-config.ts';
import { StoreInUseError } from './control/control-socket.ts';
import { exitWhenFlushed } from './control/exit-when-flushed.ts';
import { watchLauncher } from './control/launcher-watch.ts';
import { storeCommand, UsageError } from './control/store-cli.ts';
import { automationsCommand } from './control/automations-cli.ts';
import { usersCommand } from './control/users-cli.ts';
import { configWarnings } from '../gateway/keys/expiry-warnings.ts';
import { systemClock } from '../platform/clock.ts';
import { PortInUseError } from './port-in-use.ts';
import { checkConfig } from '../gateway/pipeline/load-pipeline.ts';
import { BUILTIN_PLUGINS } from '../../plugins/index.ts';

const USAGE = `usage:
  svc start [--config FILE] [--port N] [--admin-port N] [--role all|gateway|admin] [--workers auto|N]
                                                         run the gateway and admin listeners (--role: only one side;
                                                         --workers: threads serving the gateway, auto = one per core)
  svc validate [FILE]                                    check a gateway.yaml (exit 0 valid, 1 invalid)
  svc migrate [--config FILE] [--json]                   apply pending store migrations
  svc keys create --project ID [--kind project|organization] [--note TEXT] [--config FILE] [--json]
                                                         create an API key pair (the secret is shown once)
  svc agents add --project ID --name N [--version V] [--framework F] [--model M] [--config FILE] [--json]
                                                         add an agent to a project
  svc automations create --project ID (--url URL | --type pagerduty --routing-key K) [--type webhook|slack|pagerduty]
                     [--name N] [--actions created,updated,deleted] [--header K=V]... [--config FILE] [--json]
                                                         a prompt-version automation (a webhook's signing secret is shown once)
  svc automations list [--project ID] | enable|disable|delete|deliveries --automation ID   [--config FILE] [--json]
  svc users add --email E --role owner|admin|member|viewer [--name N] [--config FILE] [--json]
                                                         add a dashboard user (the generated password is shown once)
  svc users list [--config FILE] [--json]                list the dashboard users
  svc --version

The store commands work while svc runs (an embedded store is reached through <data_dir>/control.sock).`;

/** `0.0.0.0:8080 (all interfaces)`: what a listener is bound to and who can reach it. */
function boundText(a: AddressInfo): string {
  const scope =
    a.address === '0.0.0.0' || a.address === '::'
      ? 'all interfaces'
      : isLoopback(a.address)
        ? 'loopback only'
        : 'this address only';
  return `${hostOf(a.address)}:${a.port} (${scope})`;
}

/** A URL that reaches a listener from this machine: `localhost` for one bound to every interface. */
function reachUrl(a: AddressInfo): string {
  const wildcard = a.address === '0.0.0.0' || a.address === '::';
  return `http://${wildcard ? 'localhost' : hostOf(a.address)}:${a.port}`;
}

const hostOf = (address: string) => (address.includes(':') ? `[${address}]` : address);

/** `svc gateway listening on 0.0.0.0:8080 (all interfaces): http://localhost:8080/v1`, then what the line adds. */
function listeningLine(name: string, bound: AddressInfo, path: string, note: string): string {
  return `svc ${name} listening on ${boundText(bound)}: ${reachUrl(bound)}${path} (${note})`;
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';
}

function portOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--${name} must be an integer from 0 to 65535`);
  return port;
}

function workersOption(value: string | undefined): 'auto' | number | undefined {
  if (value === undefined || value === 'auto') return value;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 256)
    throw new UsageError('--workers must be auto or an integer from 1 to 256');
  return workers;
}

async function validate(file: string): Promise<number> {
  try {
    const { loaded } = await checkConfig(await inspectConfigFile(file, process.env), BUILTIN_PLUGINS);
    for (const w of configWarnings(loaded, systemClock.now())) console.log(`warning: ${w}`);
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
    options: {
      config: { type: 'string', short: 'c', default: 'gateway.yaml' },
      port: { type: 'string' },
      'admin-port': { type: 'string' },
      role: { type: 'string', default: 'all' },
      workers: { type: 'string' },
    },
  });
  // Loaded here, so the store commands do not pay for the whole service at startup.
  const { startService, SERVICE_ROLES } = await import('./service.ts');
  let service;
  try {
    const role = SERVICE_ROLES.find((r) => r === values.role);
    if (!role) throw new UsageError(`--role must be one of ${SERVICE_ROLES.join(', ')}`);
    service = await startService({
      role,
      configPath: values.config,
      port: portOption(values.port, 'port'),
      adminPort: portOption(values['admin-port'], 'admin-port'),
      workers: workersOption(values.workers),
      onGeneratedKey: (g) => console.log(`Generated gateway key for '${g.alias}' (shown once; keep it): ${g.key}`),
      onCreatedApiKey: (k) =>
        console.log(
          `Created project key pair for '${k.projectId}' (shown once; keep it):\n  public key: ${k.publicKey}\n  secret key: ${k.secretKey}`,
        ),
      onFirstOwner: (o, url) =>
        console.log(`Dashboard sign-in (shown once; keep it): ${url} as ${o.email} with password ${o.password}`),
    });
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`svc: ${err.message}`);
      return exitWhenFlushed(2);
    }
    if (err instanceof ConfigError) {
      console.error(`svc: cannot start, ${values.config} is invalid:`);
      for (const issue of err.issues) console.error(`  ${formatIssue(issue)}`);
      return exitWhenFlushed(1);
    }
    if (err instanceof StoreInUseError || err instanceof PortInUseError) {
      console.error(`svc: cannot start: ${err.message}`);
      return exitWhenFlushed(1);
    }
    throw err;
  }
  // Test helpers and the SDKs' test fixtures read the URLs after `: ` in these lines.
  if (service.gatewayBound !== undefined)
    console.log(listeningLine('gateway', service.gatewayBound, '/v1', `role ${service.role}`));
  if (service.role === 'gateway')
    console.log(listeningLine('status', service.adminBound, '', '/health, /ready, /metrics only'));
  else
    console.log(
      listeningLine(
        'admin',
        service.adminBound,
        '',
        service.role === 'admin' ? 'role admin; no gateway listener' : 'dashboard, REST and public APIs',
      ),
    );
  process.on('SIGHUP', () => void service.reload());
  let stopping = false;
  const shutdown = (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`svc: ${why}, draining`);
    service.stop().then(
      () => exitWhenFlushed(0),
      (err: unknown) => {
        console.error(err);
        return exitWhenFlushed(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM received'));
  process.on('SIGINT', () => shutdown('SIGINT received'));
  watchLauncher(process.env, () => shutdown('the npm process that started svc has exited'));
}

/** parseArgs refusals (an unknown flag, a flag without its value, a stray word) are usage errors, not crashes. */
const isArgumentError = (err: unknown): err is Error =>
  err instanceof Error && String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
    console.log(USAGE);
    return;
  }
  switch (command) {
    case 'start':
      return start(rest);
    case 'validate': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      return exitWhenFlushed(await validate(positionals[0] ?? 'gateway.yaml'));
    }
    case 'migrate':
    case 'keys':
    case 'agents':
    case 'automations':
    case 'users':
      try {
        process.exitCode =
          command === 'automations'
            ? await automationsCommand(rest)
            : command === 'users'
              ? await usersCommand(rest)
              : await storeCommand(command, rest);
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        console.error(`svc: ${err.message}\n${USAGE}`);
        process.exitCode = 2;
      }
      return;
    case '--version':
    case '-v': {
      // From dist/src/runtime/cli.js or, run from source, src/runtime/cli.ts.
      const from = import.meta.url.includes('/dist/') ? '../../../package.json' : '../../package.json';
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
      return exitWhenFlushed(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (isArgumentError(err)) {
    console.error(`svc: ${err.message}\n${USAGE}`);
    return exitWhenFlushed(2);
  }
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  return exitWhenFlushed(1);
});
