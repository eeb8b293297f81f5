/**
 * Schema compatibility as Confluent Schema Registry defines its levels, decided with avsc's schema
 * resolution: a reader can read what a writer wrote iff `reader.createResolver(writer)` succeeds.
 *
 * - BACKWARD: the new schema reads data written with the previous one (consumers upgrade first).
 * - FORWARD: the previous schema reads data written with the new one (producers upgrade first).
 * - FULL: both. `*_TRANSITIVE` checks against every live version instead of only the latest.
 */
import type avro from 'avsc';

export const COMPATIBILITY_LEVELS = ['NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE'] as const;

export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

export function parseCompatibilityLevel(value: unknown): CompatibilityLevel | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.toUpperCase();
  return (COMPATIBILITY_LEVELS as readonly string[]).includes(upper) ? (upper as CompatibilityLevel) : undefined;
}

export interface PreviousSchema {
  readonly version: number;
  readonly type: avro.Type;
}

export interface CompatibilityProblem {
  readonly errorType: 'READER_CANNOT_READ_WRITER';
  readonly direction: 'BACKWARD' | 'FORWARD';
  readonly oldSchemaVersion: number;
  readonly description: string;
}

function canRead(reader: avro.Type, writer: avro.Type): string | undefined {
  try {
    reader.createResolver(writer);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The problems that keep `candidate` from being registered after `previous` (oldest first, live versions
 * only) under `level`. An empty list means compatible.
 */
export function compatibilityProblems(level: CompatibilityLevel, candidate: avro.Type, previous: readonly PreviousSchema[]): CompatibilityProblem[] {
  if (level === 'NONE' || previous.length === 0) return [];
  const transitive = level.endsWith('_TRANSITIVE');
  const against = transitive ? previous : previous.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const problems: CompatibilityProblem[] = [];
  for (const old of against) {
    if (backward) {
      const why = canRead(candidate, old.type);
      if (why !== undefined) problems.push(problem('BACKWARD', old.version, `the new schema cannot read data written with version ${old.version}: ${why}`));
    }
    if (forward) {
      const why = canRead(old.type, candidate);
      if (why !== undefined) problems.push(problem('FORWARD', old.version, `version ${old.version} cannot read data written with the new schema: ${why}`));
    }
  }
  return problems;
}

const problem = (direction: 'BACKWARD' | 'FORWARD', oldSchemaVersion: number, description: string): CompatibilityProblem => ({
  errorType: 'READER_CANNOT_READ_WRITER',
  direction,
  oldSchemaVersion,
  description,
});

/** Confluent's wording for a refused registration, with our problem list as its `details`. */
export function incompatibleMessage(subject: string, level: CompatibilityLevel, problems: readonly CompatibilityProblem[]): string {
  const details = problems.map((p) => ({
    errorType: p.errorType,
    description: p.description,
    oldSchemaVersion: p.oldSchemaVersion,
  }));
  return `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: ${JSON.stringify([
    ...details,
    { compatibility: level },
  ])}`;
}
