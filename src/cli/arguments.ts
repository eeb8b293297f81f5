import { InvalidArgumentError } from 'commander';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

/** A retention limit as Kafka takes it: a whole number ≥ 0, or -1 for none. */
export function retentionLimit(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n) || n < -1) throw new InvalidArgumentError('must be a whole number ≥ 0, or -1 for no limit');
  return n;
}

/** An ISO 8601 time (`2026-11-23T06:00:00Z`), as epoch milliseconds. */
export function isoTime(value: string): number {
  const ms = Date.parse(value);
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(value) || Number.isNaN(ms)) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-11-23T06:00:00Z');
  return ms;
}
