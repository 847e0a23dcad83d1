// What every store command runs with and how it fails, shared by the command families that commands.ts dispatches to.
import type { Database, Queryable } from '../../platform/store/database.ts';
import { getProject, type Project } from '../../platform/store/repos/projects.ts';

/** A failure the operator caused (unknown project, duplicate agent): reported as is, with the CLI's exit code. */
export class CommandError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

export interface CommandContext {
  db: Database;
  now: () => number;
  /** Called after a command changed keys or agents (the running service refreshes its key cache). */
  changed?: () => Promise<void>;
}

/** The audit actor of every store command. */
export const CLI_ACTOR = { actor: 'cli' } as const;

export async function requireProject(db: Queryable, id: string): Promise<Project> {
  const project = await getProject(db, id);
  if (!project)
    throw new CommandError(`unknown project '${id}' (projects come from gateway.yaml and are created when svc starts)`);
  return project;
}
