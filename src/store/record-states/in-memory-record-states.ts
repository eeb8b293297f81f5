/**
 * The record state store in memory: the same rules as the PostgreSQL adapter (states only move forward, a
 * delta's first outcome stays, checkpoints never go back), for unit tests of the pipeline and the services.
 * Values are copied in and out, so a caller's later changes never reach what is stored.
 */
import {
  recordIdKey,
  verdictsOfEvents,
  type BatchReads,
  type DeltaOutcomeRow,
  type PersistedEvent,
  type RecordId,
  type RecordState,
  type RecordStateStore,
  type StateCheckpoint,
  type StoredVerdict,
} from './port';

const outcomeKey = (tenant: string, deltaId: string): string => JSON.stringify([tenant, deltaId]);
const checkpointKey = (topic: string, partition: number): string => JSON.stringify([topic, partition]);

export class InMemoryRecordStateStore implements RecordStateStore {
  readonly #states = new Map<string, RecordState>();
  readonly #outcomes = new Map<string, { tenant: string; outcome: DeltaOutcomeRow }>();
  readonly #checkpoints = new Map<string, bigint>();
  #marked = false;

  async markCaughtUp(): Promise<void> {
    this.#marked = true;
  }

  async unmark(): Promise<void> {
    this.#marked = false;
  }

  async outcome(deltaId: string, tenant: string): Promise<DeltaOutcomeRow | undefined> {
    const found = this.#outcomes.get(outcomeKey(tenant, deltaId));
    return found === undefined ? undefined : structuredClone(found.outcome);
  }

  async outcomes(deltas: readonly { tenant: string; deltaId: string }[]): Promise<{ tenant: string; outcome: DeltaOutcomeRow }[]> {
    const keys = new Set(deltas.map((d) => outcomeKey(d.tenant, d.deltaId)));
    return [...keys].flatMap((key) => {
      const found = this.#outcomes.get(key);
      return found === undefined ? [] : [structuredClone(found)];
    });
  }

  async getMany(ids: readonly RecordId[]): Promise<Map<string, RecordState>> {
    const found = new Map<string, RecordState>();
    for (const id of ids) {
      const state = this.#states.get(recordIdKey(id));
      if (state !== undefined) found.set(recordIdKey(id), structuredClone(state));
    }
    return found;
  }

  async readBatch(ids: readonly RecordId[], deltas: readonly { tenant: string; deltaId: string }[]): Promise<BatchReads> {
    return { states: await this.getMany(ids), outcomes: await this.outcomes(deltas), markLost: !this.#marked };
  }

  async recordVerdicts(verdicts: readonly StoredVerdict[]): Promise<void> {
    for (const v of verdicts) {
      const tenant = v.status === 'accepted' ? v.id.tenant : v.tenant;
      const key = outcomeKey(tenant, v.outcome.deltaId);
      if (!this.#outcomes.has(key)) this.#outcomes.set(key, { tenant, outcome: structuredClone(v.outcome) });
      if (v.status !== 'accepted') continue;
      const stored = this.#states.get(recordIdKey(v.id));
      if (stored === undefined || stored.version < v.state.version) this.#states.set(recordIdKey(v.id), structuredClone(v.state));
    }
  }

  async storeCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void> {
    for (const c of checkpoints) {
      const key = checkpointKey(c.topic, c.partition);
      const next = BigInt(c.nextOffset);
      if ((this.#checkpoints.get(key) ?? -1n) < next) this.#checkpoints.set(key, next);
    }
  }

  async lowerCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void> {
    for (const c of checkpoints) {
      const key = checkpointKey(c.topic, c.partition);
      const next = BigInt(c.nextOffset);
      const stored = this.#checkpoints.get(key);
      if (stored !== undefined && stored > next) this.#checkpoints.set(key, next);
    }
  }

  async applyEvents(events: readonly PersistedEvent[], partition: StateCheckpoint): Promise<void> {
    await this.recordVerdicts(verdictsOfEvents(events, partition));
    await this.storeCheckpoints([partition]);
  }

  async checkpoint(topic: string, partition: number): Promise<string | undefined> {
    return this.#checkpoints.get(checkpointKey(topic, partition))?.toString();
  }
}
