/**
 * The record state store port: what the write pipeline keeps beside the log. Per record its newest version
 * and fields (stage 3 reads them), per delta its outcome (a redelivered delta is answered again instead of
 * applied twice), and per persistence-topic partition how far the store has caught up with the log. All of it
 * is derived from the persistence topics, so replaying them into an empty store rebuilds it. Adapters:
 * `postgres-record-states.ts` (the service's) and `in-memory-record-states.ts` (unit tests); both pass
 * the same contract suite.
 */

export interface RecordId {
  tenant: string;
  entity: string;
  key: string;
}

/** What stage 3 needs to know of a record: its newest version, whether it is deleted, and its fields. */
export interface RecordState {
  version: number;
  deleted: boolean;
  /** The record's fields after its newest event; null once deleted. */
  doc: Record<string, unknown> | null;
}

/** The outcome of one delta, kept so a redelivered delta is answered again instead of applied twice. */
export type DeltaOutcomeRow =
  | { status: 'accepted'; deltaId: string; eventId: string; version: number; topic: string; partition: number; offset: string }
  | { status: 'refused'; deltaId: string; problem: Record<string, unknown> };

/** One verdict to store: an accepted delta with its record's new state, or a refused one. */
export type StoredVerdict =
  | { status: 'accepted'; id: RecordId; state: RecordState; outcome: Extract<DeltaOutcomeRow, { status: 'accepted' }> }
  | { status: 'refused'; tenant: string; outcome: Extract<DeltaOutcomeRow, { status: 'refused' }> };

/** A persistence-topic partition's state checkpoint: the catch-up at start resumes reading there. */
export interface StateCheckpoint {
  topic: string;
  partition: number;
  nextOffset: string;
}

/** A persisted event read back from the log, as the store records it. */
export interface PersistedEvent {
  id: RecordId;
  deltaId: string;
  eventId: string;
  version: number;
  /** The record's fields after the event; null for a delete. */
  doc: Record<string, unknown> | null;
  offset: string;
}

/** What `readBatch` answers. */
export interface BatchReads {
  readonly states: Map<string, RecordState>;
  readonly outcomes: { tenant: string; outcome: DeltaOutcomeRow }[];
  /**
   * The store no longer holds this process's catch-up mark (`markCaughtUp`): it may have lost verdicts recorded
   * since (a database's crash recovery, a promoted replica), so these states may be behind the log.
   */
  readonly markLost: boolean;
}

/**
 * Identifies a record in maps. Tenant and entity go with their lengths, so any three strings map to distinct keys
 * (a Kafka producer's delta may name anything before stage 1 refuses it). This runs several times per delta:
 * a concatenation, where a JSON array of the three was built and serialised each time.
 */
export const recordIdKey = (id: RecordId): string => `${id.tenant.length}:${id.tenant}${id.entity.length}:${id.entity}${id.key}`;

/**
 * The stored verdicts as the services read them (a repeated Idempotency-Key, GET /deltas/:id, the rejections'
 * retry chains): the part of the store they need.
 */
export type DeltaOutcomeReader = Pick<RecordStateStore, 'outcome' | 'outcomes'>;

export interface RecordStateStore {
  /** The stored outcome of `tenant`'s delta (delta ids are unique per tenant only). */
  outcome(deltaId: string, tenant: string): Promise<DeltaOutcomeRow | undefined>;
  /** The stored outcomes of several deltas at once, each with its tenant; deltas without one are left out. */
  outcomes(deltas: readonly { tenant: string; deltaId: string }[]): Promise<{ tenant: string; outcome: DeltaOutcomeRow }[]>;
  /** The states of several records at once, by recordIdKey; records never written are absent. */
  getMany(ids: readonly RecordId[]): Promise<Map<string, RecordState>>;
  /**
   * What deciding a batch reads, at once: `getMany(ids)` and `outcomes(deltas)` (one round trip to a database;
   * the pipeline reads this for every batch).
   */
  readBatch(ids: readonly RecordId[], deltas: readonly { tenant: string; deltaId: string }[]): Promise<BatchReads>;
  /**
   * Marks the store as caught up by this process; run before each catch-up with the log. A store that may have lost
   * recorded verdicts since (see `recordVerdicts`) loses the mark too, and `readBatch` says so.
   */
  markCaughtUp(): Promise<void>;
  /** Takes this process's mark away (at stop). */
  unmark(): Promise<void>;
  /**
   * Records a batch of verdicts atomically: the records' newest states (a batch may change one record several
   * times; a stored state only moves forward) and the deltas' outcomes (the first stored outcome of a delta stays).
   * A store may keep them less durably than the rest (their events are on the log first), provided it then loses
   * the catch-up mark with them.
   */
  recordVerdicts(verdicts: readonly StoredVerdict[]): Promise<void>;
  /** Moves state checkpoints forward, never back. */
  storeCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void>;
  /**
   * Moves state checkpoints back to these offsets where they lie above them: the partition's topic was created
   * again, and a checkpoint that counted the old topic would make the catch-up pass over the new topic's events.
   */
  lowerCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void>;
  /**
   * Applies events read back from one partition (start-up catch-up, rebuild) atomically with the partition's
   * checkpoint. Idempotent: versions at or below the stored one and known deltas change nothing.
   */
  applyEvents(events: readonly PersistedEvent[], partition: StateCheckpoint): Promise<void>;
  /** Where the catch-up of a persistence topic partition resumes; undefined when it never ran. */
  checkpoint(topic: string, partition: number): Promise<string | undefined>;
}

/** The verdicts `applyEvents` records: each persisted event is an accepted delta at its offset. */
export function verdictsOfEvents(events: readonly PersistedEvent[], partition: StateCheckpoint): StoredVerdict[] {
  return events.map((e) => ({
    status: 'accepted',
    id: e.id,
    state: { version: e.version, deleted: e.doc === null, doc: e.doc },
    outcome: {
      status: 'accepted',
      deltaId: e.deltaId,
      eventId: e.eventId,
      version: e.version,
      topic: partition.topic,
      partition: partition.partition,
      offset: e.offset,
    },
  }));
}
