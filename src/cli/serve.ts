import type { Config } from '../config';
import { createLogger } from '../logger';
import { startService } from '../composition';

/** Runs the service until SIGINT/SIGTERM, then stops it cleanly. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger();
  const service = await startService(config, logger);
  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'stopping');
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
