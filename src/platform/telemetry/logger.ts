// Line-delimited JSON logs on stderr; one record per event, errors logged once at the edge.

export interface Logger {
  /** Expected events worth seeing only when investigating (a client that left mid-upload); off unless asked for. */
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level named by `SVC_LOG_LEVEL` (debug, info, warn, error); info when unset or unknown. */
export function logLevelOf(value: string | undefined): LogLevel {
  const level = value?.trim().toLowerCase();
  return LOG_LEVELS.find((l) => l === level) ?? 'info';
}

export function jsonLogger(
  base: Record<string, unknown> = {},
  write: (line: string) => void = (l) => process.stderr.write(l),
  level: LogLevel = 'info',
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const emitter = (name: LogLevel) =>
    LOG_LEVELS.indexOf(name) < threshold
      ? () => {}
      : (msg: string, fields?: Record<string, unknown>) =>
          write(`${JSON.stringify({ t: new Date().toISOString(), level: name, msg, ...base, ...fields })}\n`);
  return {
    debug: emitter('debug'),
    info: emitter('info'),
    warn: emitter('warn'),
    error: emitter('error'),
    child: (fields) => jsonLogger({ ...base, ...fields }, write, level),
  };
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
