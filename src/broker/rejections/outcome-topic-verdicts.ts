import type { DeltaOutcome, PartitionOffset, RecordSchemas, WriteLog } from '../../log';
import { PIPELINE_TOPICS, deltaKey } from '../../log/topology';
import { verdictOfOutcome, type DeltaVerdict, type TenantDelta, type VerdictLookup } from './verdicts';

/**
 * Verdicts read from the outcomes topic, for a process that has no access to the pipeline's store (the CLI
 * beside a service on the embedded defaults). The first look-up of an id reads the whole topic; later look-ups
 * of ids already asked for read only what was written since, so waiting for verdicts stays cheap. The topic's
 * retention bounds what it knows: a verdict older than that is not found, and a retry id sent again is then
 * answered from the pipeline's store instead of being applied twice.
 */
export class OutcomeTopicVerdicts implements VerdictLookup {
  readonly #watched = new Set<string>();
  readonly #found = new Map<string, DeltaVerdict>();
  #readUpTo: readonly PartitionOffset[] | undefined;

  constructor(
    private readonly log: WriteLog,
    private readonly schemas: RecordSchemas,
  ) {}

  async verdicts(deltas: readonly TenantDelta[]): Promise<Map<string, DeltaVerdict>> {
    const keys = deltas.map((d) => deltaKey(d.tenant, d.deltaId));
    const fresh = keys.filter((id) => !this.#watched.has(id));
    for (const id of fresh) this.#watched.add(id);
    const result = await this.log.replay<DeltaOutcome>({
      topic: PIPELINE_TOPICS.outcomes,
      readerSchema: this.schemas.DeltaOutcome,
      from: fresh.length > 0 || this.#readUpTo === undefined ? { kind: 'earliest' } : { kind: 'offsets', offsets: this.#readUpTo },
      handleBatch: async (batch) => {
        for (const { value } of batch.records) {
          const key = deltaKey(value.tenant, value.deltaId);
          if (this.#watched.has(key)) this.#found.set(key, verdictOfOutcome(value));
        }
      },
    });
    this.#readUpTo = result.endOffsets;
    const out = new Map<string, DeltaVerdict>();
    for (const id of keys) {
      const verdict = this.#found.get(id);
      if (verdict) out.set(id, verdict);
    }
    return out;
  }
}
