// A small JSON file under data_dir for facts that must survive restarts before the SQL store exists:
// hashes of generated keys and the first-load time of each model group.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalState {
  generated_keys: Record<string, string>;
  model_groups_created: Record<string, number>;
}

export class LocalStateFile {
  readonly path: string;
  #state: LocalState;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.path = join(dataDir, 'gateway-state.json');
    this.#state = { generated_keys: {}, model_groups_created: {} };
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<LocalState>;
      this.#state = {
        generated_keys: parsed.generated_keys ?? {},
        model_groups_created: parsed.model_groups_created ?? {},
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new Error(`cannot read ${this.path}: ${(err as Error).message}`);
    }
  }

  get state(): Readonly<LocalState> {
    return this.#state;
  }

  update(change: (state: LocalState) => boolean): void {
    if (!change(this.#state)) return;
    const temp = `${this.path}.tmp`;
    // Write then rename so a crash never leaves a half-written file.
    writeFileSync(temp, `${JSON.stringify(this.#state, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.path);
  }
}
