/**
 * Sizes of the reliability suite, from the environment. `RELIABILITY_PROFILE=ci` keeps the whole suite within a few
 * minutes (the crash run stays at 20,000 deltas; the load run is 60 s); the default profile is the full size.
 */
export interface ReliabilityProfile {
  name: 'full' | 'ci';
  /** Seed of every generator: the same seed makes the same deltas, kill points and corpus. */
  seed: number;
  crashDeltas: number;
  crashKeys: number;
  kills: number;
  corpusSize: number;
  /** Measured part of the load run; it follows a warm-up at the same rate. */
  loadSeconds: number;
  loadWarmUpSeconds: number;
  /** How long the peak write rate is measured before the load run. */
  peakSeconds: number;
  /**
   * Operations per second of the load run; 0 runs it at half the measured peak. A fixed rate compares two versions
   * of the code: the peak of one version moved from 642 to 995 operations/s between runs on one machine.
   */
  loadRate: number;
}

function intFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
  return value;
}

export function reliabilityProfile(): ReliabilityProfile {
  const name = process.env.RELIABILITY_PROFILE === 'ci' ? 'ci' : 'full';
  return {
    name,
    seed: intFromEnv('RELIABILITY_SEED', 20261123, 0),
    crashDeltas: intFromEnv('RELIABILITY_CRASH_DELTAS', 20_000, 1_000),
    crashKeys: intFromEnv('RELIABILITY_CRASH_KEYS', 1_000, 10),
    kills: intFromEnv('RELIABILITY_KILLS', 3, 1),
    corpusSize: intFromEnv('RELIABILITY_CORPUS_SIZE', 5_000, 100),
    loadSeconds: intFromEnv('RELIABILITY_LOAD_SECONDS', name === 'ci' ? 60 : 600, 20),
    loadWarmUpSeconds: intFromEnv('RELIABILITY_LOAD_WARMUP_SECONDS', 60, 0),
    peakSeconds: intFromEnv('RELIABILITY_PEAK_SECONDS', name === 'ci' ? 10 : 20, 3),
    loadRate: intFromEnv('RELIABILITY_LOAD_RATE', 0, 0),
  };
}
