import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that may hold secrets; pino replaces them before a line is written. */
const REDACT = [
  'req.headers.authorization',
  '*.authorization',
  '*.password',
  '*.pin',
  '*.masterKey',
  '*.key',
  '*.keyMaterial',
  '*.plaintext',
  '*.payload',
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'deltabroker' } });
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
