// Where a CLI store command runs. Postgres: here, on a connection of its own (running services pick changes up by
// polling). Embedded PGlite: through the control socket when a process (the running service) has the store open,
// else here, holding the socket meanwhile so that nothing else opens the store until it is closed again.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadedConfig } from '../../platform/config/load-config.ts';
import { openDatabase, type Database } from '../../platform/store/database.ts';
import { openStore } from '../../platform/store/open-store.ts';
import { describeError, runCommand, type ControlRequest, type ControlResponse } from './commands.ts';
import { sendControlRequest } from './control-client.ts';
import { claimControlSocket, controlSocketPath, type ControlSocket } from './control-socket.ts';

export async function runStoreCommand(
  loaded: LoadedConfig,
  request: ControlRequest,
  warn: (message: string) => void,
): Promise<ControlResponse> {
  const dataDir = resolve(loaded.baseDir, loaded.config.store.data_dir);
  if (loaded.config.store.postgres_url) return runHere(loaded, request);
  const where = controlSocketPath(dataDir);
  if (!where.ok) {
    warn(
      `cannot tell whether svc is running on ${dataDir} (control socket ${where.path}: ${where.reason}); stop it before running this command`,
    );
    return runHere(loaded, request);
  }
  // The holder can exit between our look and our request; then the store is free and we look again.
  for (let attempt = 0; attempt < 3; attempt++) {
    let claimed: ControlSocket | 'live';
    try {
      mkdirSync(dataDir, { recursive: true });
      claimed = await claimControlSocket(where.path);
    } catch (err) {
      return { ok: false, error: `cannot open the store (embedded, ${dataDir}): ${describeError(err)}`, exitCode: 1 };
    }
    if (claimed !== 'live') return runHere(loaded, request, claimed);
    const response = await sendControlRequest(where.path, request);
    if (response !== 'unavailable') return response;
  }
  return { ok: false, error: `the control socket ${where.path} keeps changing hands; try again`, exitCode: 1 };
}

/** Opens the store in this process, runs the command, and closes the store (and socket) before returning. */
async function runHere(
  loaded: LoadedConfig,
  request: ControlRequest,
  control?: ControlSocket,
): Promise<ControlResponse> {
  const { config, baseDir } = loaded;
  let db: Database;
  try {
    // `svc migrate` reports what it applies, so it migrates itself; the others migrate on open, as `svc start` does.
    if (request.command === 'migrate') {
      const opened = await openDatabase({
        postgresUrl: config.store.postgres_url,
        dataDir: resolve(baseDir, config.store.data_dir),
      });
      // Postgres connects lazily: find an unreachable server here, not halfway through.
      await opened.query('SELECT 1').catch(async (err: unknown) => {
        await opened.close().catch(() => {});
        throw err;
      });
      db = opened;
    } else db = await openStore(config, baseDir);
  } catch (err) {
    await control?.close();
    return {
      ok: false,
      error: `cannot open the store (${config.store.postgres_url ? 'postgres' : 'embedded, ' + resolve(baseDir, config.store.data_dir)}): ${describeError(err)}`,
      exitCode: 1,
    };
  }
  const ctx = { db, now: () => Date.now() };
  // Other CLIs that find our socket meanwhile are served from this same open store.
  control?.serve((r) => runCommand(ctx, r));
  try {
    return await runCommand(ctx, request);
  } finally {
    const closeDb = () => db.close().catch(() => {});
    await (control ? control.close(closeDb) : closeDb());
  }
}
