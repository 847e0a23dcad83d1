// Whether a store call failed because the database could not be reached (refused, lost or timed-out connection, a
// server shutting down, starting up or out of connections) rather than because it refused the statement. Callers
// answer the first with a coded 503 (the request may succeed once the store is back) instead of a 500.

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server that cannot take the statement now: connection exceptions, shutdown, start-up, too many connections. */
const SERVER_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
/** node-postgres reports lost connections and its own timeouts without a code. */
const CLIENT_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/** What the admin surfaces answer (with a 503) when the store cannot be reached. */
export const STORE_UNREACHABLE_MESSAGE = 'The store is unreachable; retry shortly.';

/** Thrown by a service (such as the spend ledger) whose SQL store could not be reached; the cause is the store's error. */
export class StoreUnavailableError extends Error {}

export function storeUnreachable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_UNAVAILABLE.test(code))) return true;
  return CLIENT_MESSAGES.test(err.message);
}
