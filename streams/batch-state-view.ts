import type { DeltaEnvelope } from '../src/log';
import { deltaKey } from '../src/log/topology';
import { recordIdKey, type DeltaOutcomeRow, type RecordId, type RecordState, type RecordStateStore } from '../src/store/record-states/port';

/** A record never written. */
const ABSENT: RecordState = { version: 0, deleted: true, doc: null };

/** What stage 3 reads: the states of a batch's records, loaded before the batch is decided. */
export interface LoadedStates {
  get(id: RecordId): RecordState;
}

/**
 * The state store as one batch of deltas sees it: the batch's records and stored outcomes read in one round trip
 * up front, plus the states the batch's own accepted deltas produce, so a later delta of the batch on the same
 * record sees the earlier one before anything is written.
 */
export class BatchStateView implements LoadedStates {
  private readonly pending = new Map<string, RecordState>();

  private constructor(
    private readonly loaded: ReadonlySet<string>,
    private readonly stored: Map<string, RecordState>,
    private readonly outcomes: Map<string, DeltaOutcomeRow>,
    /** The store lost this process's catch-up mark: these states may be behind the log (see BatchReads). */
    readonly markLost: boolean,
  ) {}

  static async load(store: RecordStateStore, deltas: readonly DeltaEnvelope[]): Promise<BatchStateView> {
    const ids = deltas.map((d) => ({ tenant: d.tenant, entity: d.entity, key: d.key }));
    const { states, outcomes, markLost } = await store.readBatch(
      ids,
      deltas.map((d) => ({ tenant: d.tenant, deltaId: d.id })),
    );
    const byDelta = new Map(outcomes.map(({ tenant, outcome }) => [deltaKey(tenant, outcome.deltaId), outcome]));
    return new BatchStateView(new Set(ids.map(recordIdKey)), states, byDelta, markLost);
  }

  get(id: RecordId): RecordState {
    const key = recordIdKey(id);
    const known = this.pending.get(key) ?? this.stored.get(key);
    if (known) return known;
    if (this.loaded.has(key)) return { ...ABSENT };
    throw new Error('pipeline: a stage asked for a record that is not one of the batch’s');
  }

  /** The outcome stored for `tenant`'s delta before this batch. */
  storedOutcome(deltaId: string, tenant: string): DeltaOutcomeRow | undefined {
    return this.outcomes.get(deltaKey(tenant, deltaId));
  }

  /** A state this batch produced; later deltas of the batch see it. */
  put(id: RecordId, state: RecordState): void {
    this.pending.set(recordIdKey(id), state);
  }
}
