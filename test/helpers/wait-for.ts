// Waiting in tests. `waitFor` polls until a condition holds: for effects that happen behind a response (trace and
// ledger writes, settlement, a reload, a drain). `sleep` lets real time pass where time is what the test is about
// (latency of a fake upstream, a window to expire).

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves with the first value of `probe` that is not undefined, null or false; fails after `ms`, naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}
