// Line-delimited JSON logs on stderr; one record per event, errors logged once at the edge.

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function jsonLogger(base: Record<string, unknown> = {}, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) => {
    write(`${JSON.stringify({ t: new Date().toISOString(), level, msg, ...base, ...fields })}\n`);
  };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => jsonLogger({ ...base, ...fields }, write),
  };
}

export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
