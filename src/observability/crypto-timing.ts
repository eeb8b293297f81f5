import type { EncryptionService } from '../crypto/encryption-service';
import type { ServiceMetrics } from './metrics';

/**
 * Times the encryption service's operations by wrapping the instance's methods, which keeps the crypto core
 * free of metrics. Only successful operations are observed: they name the explicit method they used, while a
 * refused request may name any string.
 */
export function timeEncryption(service: EncryptionService, metrics: ServiceMetrics): void {
  const timed =
    <A extends unknown[], R extends { method: string }>(operation: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      const result = await run(...args);
      metrics.cryptoDuration.observe({ operation, method: result.method }, (performance.now() - started) / 1000);
      return result;
    };
  service.encrypt = timed('encrypt', service.encrypt.bind(service));
  service.decrypt = timed('decrypt', service.decrypt.bind(service));
  service.rewrap = timed('rewrap', service.rewrap.bind(service));
}
