import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { redactSecrets } from './log-redaction';

export type { Logger };

/**
 * JSON lines for machines; at a terminal, readable lines (pino-pretty) unless LOG_FORMAT=json. The same
 * redaction applies to both, since it runs before a line is formatted.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', env: NodeJS.ProcessEnv = process.env): Logger {
  return loggerOn(process.stdout, 1, level, env);
}

/**
 * A command-line tool's logger: its lines go to stderr, so that stdout carries only the command's result (JSON a
 * script parses) even when a library logs a retried error on the way.
 */
export function createToolLogger(level: string = process.env.LOG_LEVEL ?? 'warn', env: NodeJS.ProcessEnv = process.env): Logger {
  return loggerOn(process.stderr, 2, level, env);
}

function loggerOn(stream: NodeJS.WriteStream, fd: 1 | 2, level: string, env: NodeJS.ProcessEnv): Logger {
  const readable = env.LOG_FORMAT !== 'json' && (env.LOG_FORMAT === 'pretty' || stream.isTTY === true);
  const options = { colorize: stream.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', destination: fd };
  return redactingLogger(level, readable ? pretty(options) : pino.destination({ fd, sync: fd === 2 }));
}

/** The service's logger on a destination (stdout when none): secrets in a line's fields or a child's bindings are replaced. */
export function redactingLogger(level: string, destination?: DestinationStream): Logger {
  const logger = pino({ level, formatters: { log: redactSecrets }, base: { service: 'deltabroker' } }, destination);
  // Children inherit this from the root (pino makes them with Object.create), so every descendant's bindings
  // pass through redactSecrets too; pino's own bindings formatter is not applied to children.
  const child = logger.child;
  logger.child = function (this: unknown, bindings: Bindings, options?: ChildLoggerOptions) {
    return Reflect.apply(child, this, [redactSecrets(bindings), options]) as unknown;
  } as typeof child;
  return logger;
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
