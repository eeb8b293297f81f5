import path from 'node:path';
import pino from 'pino';
import { redactingLogger, type Logger } from '../../src/logger';

/**
 * The benchmarked service's logger as a deployment runs it: the service's own logger at `LOG_LEVEL` (default
 * info, as `npm start`), JSON lines written to `service.log` in its data directory the way pino writes to a
 * redirected stdout. Until 2026-11-26 the benchmarks ran the service with a silent logger, so they did not pay
 * for the lines a deployment writes (at info then, a line per delta and per projected batch).
 */
export const deploymentLogger = (dataDir: string): Logger =>
  redactingLogger(process.env.LOG_LEVEL ?? 'info', pino.destination(path.join(dataDir, 'service.log')));
