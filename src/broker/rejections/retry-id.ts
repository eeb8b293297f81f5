import { createHash } from 'node:crypto';

/**
 * The id of the retry of a refused delta. It follows from the tenant and the refused delta's id, so the same
 * retry sent twice (by two operators, or a command run again before the first verdict) is one delta id, and
 * the pipeline, which keeps one outcome per delta id, applies it once. A retry refused again is retried under
 * the id that follows from its own, which makes the attempts of one refused delta a chain anyone can walk.
 * The id has the shape of a name-based UUID (version 5, RFC 4122 variant), like every other delta id.
 */
export function retryIdOf(tenant: string, refusedDeltaId: string): string {
  const digest = createHash('sha256').update(`deltabroker-retry|${tenant}|${refusedDeltaId}`).digest();
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}
