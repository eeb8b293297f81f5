import type { Actor, DeltaEnvelope, LogPosition } from '../src/log';
import type { EntityConfig } from '../src/tenant';
import type { RecordState } from '../src/store/record-states/port';

/**
 * One delta on its way through the pipeline. Each stage reads what earlier stages set and sets its own part;
 * a stage that refuses throws a DeltabrokerError whose `stage` names it (before it sets anything).
 */
export interface DeltaContext {
  readonly delta: DeltaEnvelope;
  /** Where the delta was read from: its position on the deltas topic. */
  readonly source: LogPosition | undefined;
  /** The record's headers and timestamp: where a Kafka producer's proof of its actor travels. */
  readonly record?: { readonly headers: Readonly<Record<string, string>>; readonly timestamp: number };
  /** Stage 5: the actor as proven (the token's subject and roles, or the service's sealed envelope). */
  actor?: Actor;
  /** Stage 1. */
  config?: EntityConfig;
  /** Stage 2: the payload object (empty for a delete without payload). */
  fields?: Record<string, unknown>;
  /** Stage 3: the record as it is now (version 0 when it never existed). */
  current?: RecordState;
  /** Stage 3: the version the record will have after this delta. */
  nextVersion?: number;
  /** Stage 4. */
  persistenceTopic?: string;
  /** Stage 6: fields removed because the actor may not write them. */
  stripped?: string[];
}

/** A context with every stage's part present (unset), so it keeps one shape while the stages fill it in. */
export function newDeltaContext(delta: DeltaEnvelope, source: LogPosition | undefined, record?: DeltaContext['record']): DeltaContext {
  return {
    delta,
    source,
    record,
    actor: undefined,
    config: undefined,
    fields: undefined,
    current: undefined,
    nextVersion: undefined,
    persistenceTopic: undefined,
    stripped: undefined,
  };
}

/** Reads a value a previous stage must have set; a missing one is a bug in the stage order, not bad input. */
export function required<K extends keyof DeltaContext>(ctx: DeltaContext, key: K): NonNullable<DeltaContext[K]> {
  const value = ctx[key];
  if (value === undefined || value === null) throw new Error(`pipeline stage order: '${String(key)}' is not set yet`);
  return value;
}
