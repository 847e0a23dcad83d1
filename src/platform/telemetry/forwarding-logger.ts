// A logger for a worker thread: each record goes as a message to the thread that started it, which writes it with
// its own logger (so a thread's records honour the service's level, destination and test capture).
import type { Logger, LogLevel } from './logger.ts';

export interface LogMessage {
  type: 'log';
  level: LogLevel;
  message: string;
  fields?: Record<string, unknown>;
}

export function forwardingLogger(post: (m: LogMessage) => void, fields: Record<string, unknown> = {}): Logger {
  const at =
    (level: LogLevel) =>
    (message: string, more?: Record<string, unknown>): void =>
      post({ type: 'log', level, message, fields: { ...fields, ...more } });
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => forwardingLogger(post, { ...fields, ...more }),
  };
}
