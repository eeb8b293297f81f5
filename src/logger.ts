import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** Paths that may hold secrets; pino replaces them before a line is written. */
const REDACT = ['req.headers.authorization', '*.authorization', '*.password', '*.pin', '*.masterKey', '*.key', '*.keyMaterial', '*.plaintext', '*.payload'];

/**
 * JSON lines for machines; at a terminal, readable lines (pino-pretty) unless LOG_FORMAT=json. The same
 * redaction applies to both, since it runs before a line is formatted.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', env: NodeJS.ProcessEnv = process.env): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'deltabroker' } };
  const readable = env.LOG_FORMAT !== 'json' && (env.LOG_FORMAT === 'pretty' || process.stdout.isTTY === true);
  return readable
    ? pino(options, pretty({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }))
    : pino(options);
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
