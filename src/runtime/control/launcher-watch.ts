// `npx svc start` runs svc as `sh -c 'svc' start …` under npm, and npm forwards SIGTERM and SIGINT to that shell only.
// A shell that runs its command as a child rather than exec'ing it (dash, the /bin/sh of Debian and Ubuntu) dies of
// the signal, npm exits with it, and svc, reparented, would run on holding its ports and the store. Under npm, the
// process that started svc going away therefore means "stop". Outside npm it does not: `nohup svc start &` from a
// shell that then exits must keep running.

/** How often the parent process is looked at. */
const CHECK_MS = 250;

/** Calls `onGone` once if svc was started by an npm script or `npx` and its parent process then exits. */
export function watchLauncher(env: NodeJS.ProcessEnv, onGone: () => void): void {
  if (env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, CHECK_MS);
  timer.unref();
}
