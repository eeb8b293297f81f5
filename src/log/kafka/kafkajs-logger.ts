/** kafkajs log lines into the service's pino logger (kafkajs's own levels, pino's structure). */
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '../../logger';

export function kafkajsLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, ...extra } = log;
      const line = { library: 'kafkajs', namespace, ...extra };
      switch (level) {
        case logLevel.ERROR:
          logger.error(line, message);
          break;
        case logLevel.WARN:
          logger.warn(line, message);
          break;
        case logLevel.INFO:
          logger.info(line, message);
          break;
        default:
          logger.debug(line, message);
      }
    };
}
