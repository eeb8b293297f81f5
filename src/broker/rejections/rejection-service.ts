/**
 * Refused deltas for operators: list them, show one with its original envelope, and send refused deltas
 * through the pipeline again once their cause is fixed. It reads the rejections topic, finds each refused
 * delta's envelope on the deltas topic by the rejection's source position (the record the pipeline refused,
 * byte for byte), and publishes retries on the deltas topic like any producer. Nothing here changes the
 * pipeline: a retry is an ordinary delta with a new id and `retryOf`, and the pipeline's idempotency on delta
 * ids keeps a retry sent twice from being applied twice.
 */
import { ACTOR_TOKEN_HEADER } from '../../auth/actor-proof';
import { DELTA_SEAL_HEADER, type DeltaSeal } from '../../auth/delta-seal';
import { DeltabrokerError } from '../../errors';
import type { DeltaEnvelope, LogRecord, OutgoingRecord, RecordSchemas, Rejection, WriteLog } from '../../log';
import type { EntityConfigSource } from '../../tenant';
import { DECODE_STAGE, PIPELINE_TOPICS, recordMessageKey } from '../../log/topology';
import { positionKey, readRecordsAt, readRejections, type Position } from './log-reading';
import { viewPayload, type PayloadAccess, type PayloadView } from './payload-view';
import type { RejectionFilter } from './rejection-filter';
import { chainKey, walkChains, type Attempt, type ChainState } from './retry-chains';
import { planRetries, retriable, type RetryItem } from './retry-plan';
import { retryIdOf } from './retry-id';
import type { DeltaVerdict, TenantDelta, VerdictLookup } from './verdicts';

export interface RejectionServiceOptions {
  readonly log: WriteLog;
  readonly schemas: RecordSchemas;
  readonly verdicts: VerdictLookup;
  readonly entities: EntityConfigSource;
  /** Seals retries: an operator of the tenant, authenticated, sends the refused delta again with its actor. */
  readonly seal: DeltaSeal;
  /** How often waiting for retries' verdicts looks again (default 250 ms). */
  readonly pollMs?: number;
}

/** One refused delta (or undecodable record) as a line of the list. */
export interface RejectionSummary {
  readonly rejectionId: string;
  /** Null for a record that could not be decoded (stage `decode`). */
  readonly deltaId: string | null;
  readonly requestId: string | null;
  readonly tenant: string | null;
  readonly entity: string | null;
  readonly key: string | null;
  readonly stage: string;
  readonly code: string;
  /** The field and rule of the refusal, from the pipeline's stored verdict (null when none was found). */
  readonly field: string | null;
  readonly rule: string | null;
  readonly message: string;
  readonly rejectedAt: string;
  /** The refused delta this one retried, when that one is among the rejections listed with it. */
  readonly retryOf: string | null;
  readonly retries: RetryState;
}

/** Where the retries of a refused delta stand. */
export interface RetryState {
  /** `open`: still refused; `accepted`: a retry (or the delta itself, decided again) was accepted. */
  readonly state: 'open' | 'accepted' | 'not-retriable';
  /** Retries that have a verdict. */
  readonly attempts: number;
  readonly acceptedBy: string | null;
}

export interface RejectionDetail {
  readonly rejection: RejectionSummary;
  /** The refused envelope as the deltas topic holds it, its payload as the caller may see it. */
  readonly delta: (Omit<DeltaEnvelope, 'payload' | 'occurredAt'> & PayloadView & { occurredAt: string }) | null;
  /** Why `delta` is null. */
  readonly deltaMissing?: string;
  /** Every retry with a verdict, oldest first. */
  readonly attempts: readonly Attempt[];
  /** For stage `decode`, with log access: the undecodable value, base64. */
  readonly raw?: string | null;
}

export type RetrySelection =
  | { readonly kind: 'ids'; readonly deltaIds: readonly string[]; readonly tenant?: string }
  | { readonly kind: 'filter'; readonly filter: RejectionFilter & { readonly since: number } };

export interface RetryReport {
  readonly dryRun: boolean;
  readonly items: readonly RetryItem[];
  /** The deltas published (empty for a dry run). */
  readonly sent: readonly TenantDelta[];
}

/** Most retries in one publish. */
const PUBLISH_CHUNK = 500;

function retryStateOf(chain: ChainState | undefined): RetryState {
  if (!chain) return { state: 'not-retriable', attempts: 0, acceptedBy: null };
  return { state: chain.kind === 'accepted' ? 'accepted' : 'open', attempts: chain.attempts.length, acceptedBy: chain.kind === 'accepted' ? chain.by : null };
}

function summarize(r: Rejection, chain: ChainState | undefined, retryOf: string | null): RejectionSummary {
  const own = chain?.own?.status === 'refused' ? chain.own : undefined;
  return {
    rejectionId: r.id,
    deltaId: r.deltaId,
    requestId: r.requestId,
    tenant: r.tenant,
    entity: r.entity,
    key: r.key,
    stage: r.stage,
    code: r.reason,
    field: own?.field ?? null,
    rule: own?.rule ?? null,
    message: r.message,
    rejectedAt: new Date(r.rejectedAt).toISOString(),
    retryOf,
    retries: retryStateOf(chain),
  };
}

export class RejectionService {
  constructor(private readonly o: RejectionServiceOptions) {}

  /** The rejections matching `filter`, newest first, at most `limit` of them, and how many matched in all. */
  async list(filter: RejectionFilter, limit: number): Promise<{ items: RejectionSummary[]; total: number }> {
    const all = await readRejections(this.o.log, this.o.schemas, filter);
    const page = all.slice(0, limit);
    const chains = await this.chainsOf(page);
    // A retry refused again is listed too; it names the refused delta it retried when that one is listed.
    const retried = new Map<string, string>();
    for (const r of page) if (r.deltaId !== null && r.tenant !== null) retried.set(`${r.tenant}/${retryIdOf(r.tenant, r.deltaId)}`, r.deltaId);
    const items = page.map((r) => summarize(r, this.chainOf(chains, r), r.tenant === null ? null : (retried.get(`${r.tenant}/${r.deltaId ?? ''}`) ?? null)));
    return { items, total: all.length };
  }

  /**
   * One refused delta (by delta id, or by rejection id for an undecodable record): its newest rejection, its
   * envelope and its retries. DB_NOT_FOUND when there is no such rejection (in `scope.tenant`).
   */
  async show(id: string, scope: { tenant?: string }, access: PayloadAccess): Promise<RejectionDetail> {
    const [rejection] = await readRejections(this.o.log, this.o.schemas, { ids: new Set([id]), ...(scope.tenant !== undefined && { tenant: scope.tenant }) });
    if (!rejection) throw notRefused(id);
    const chain = this.chainOf(await this.chainsOf([rejection]), rejection);
    const detail = { attempts: chain?.attempts ?? [], ...(access.kind === 'log' && rejection.stage === DECODE_STAGE && { raw: rejection.raw }) };
    const source = retriable(rejection)?.source;
    if (!source) {
      const deltaMissing =
        rejection.deltaId === null ? 'the record could not be decoded: there is no delta (raw holds its bytes)' : 'the rejection names no source record';
      return { ...detail, rejection: summarize(rejection, chain, null), delta: null, deltaMissing };
    }
    const delta = (await this.recordsAt([source])).get(positionKey(source))?.value;
    if (delta?.id !== rejection.deltaId) {
      return {
        ...detail,
        rejection: summarize(rejection, chain, null),
        delta: null,
        deltaMissing: `${positionKey(source)} no longer holds the refused delta (retention)`,
      };
    }
    const config = await this.o.entities.get(delta.tenant, delta.entity);
    const { payload: _payload, occurredAt, ...envelope } = delta;
    return {
      ...detail,
      rejection: summarize(rejection, chain, delta.retryOf),
      delta: { ...envelope, occurredAt: new Date(occurredAt).toISOString(), ...viewPayload(delta, config, access) },
    };
  }

  /**
   * Sends refused deltas through the pipeline again, each as a new delta naming the refused attempt it
   * retries. A delta accepted meanwhile (by an earlier retry) is skipped; one refused again is retried from its
   * newest refused attempt; two selected rejections of one chain send one retry.
   */
  async retry(selection: RetrySelection, options: { dryRun: boolean; requestId: string }): Promise<RetryReport> {
    const filter: RejectionFilter =
      selection.kind === 'filter'
        ? selection.filter
        : { ids: new Set(selection.deltaIds), ...(selection.tenant !== undefined && { tenant: selection.tenant }) };
    const rejections = await readRejections(this.o.log, this.o.schemas, filter);
    const items: RetryItem[] = [];
    if (selection.kind === 'ids') {
      const found = new Set(rejections.flatMap((r) => [r.deltaId, r.id]));
      for (const id of new Set(selection.deltaIds)) if (!found.has(id)) items.push({ deltaId: id, action: 'not-found', reason: 'no rejection of this delta' });
    }
    const plan = planRetries(rejections, await this.chainsOf(rejections));
    items.push(...plan.items);
    const originals = await this.recordsAt(plan.sends.map((p) => p.source));
    const records: OutgoingRecord<DeltaEnvelope>[] = [];
    for (const send of plan.sends) {
      const original = originals.get(positionKey(send.source));
      if (original?.value.id !== send.deltaId || original.value.tenant !== send.tenant) {
        items.push({ deltaId: send.deltaId, action: 'skipped', reason: `${positionKey(send.source)} no longer holds the refused delta (retention)` });
        continue;
      }
      items.push({ deltaId: send.deltaId, action: options.dryRun ? 'would-send' : 'sent', retry: send.retry });
      records.push(this.retryRecord(original, send.retry, options.requestId));
    }
    if (!options.dryRun) {
      for (let i = 0; i < records.length; i += PUBLISH_CHUNK) await this.publish(records.slice(i, i + PUBLISH_CHUNK));
    }
    return { dryRun: options.dryRun, items, sent: options.dryRun ? [] : records.map((r) => ({ tenant: r.value.tenant, deltaId: r.value.id })) };
  }

  /** Waits until every delta has a verdict or `timeoutMs` passed; answers the verdicts there are, by delta id. */
  async awaitVerdicts(deltas: readonly TenantDelta[], timeoutMs: number): Promise<Map<string, DeltaVerdict>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const verdicts = new Map([...(await this.o.verdicts.verdicts(deltas)).values()].map((v) => [v.deltaId, v]));
      if (verdicts.size >= new Set(deltas.map((d) => d.deltaId)).size || Date.now() >= deadline) return verdicts;
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.o.pollMs ?? 250, Math.max(0, deadline - Date.now()))));
    }
  }

  /**
   * The retry carries the proof of the delta it retries, never more: a delta the service sealed (an HTTP write, an
   * earlier retry of one) is sealed again; any other keeps its producer's token and its record timestamp, so stage 5
   * judges the same proof at the same moment and the roles come from that token again. Sealing every retry would
   * turn the roles a Kafka producer merely claimed into trusted ones.
   */
  private retryRecord(original: LogRecord<DeltaEnvelope>, retry: { deltaId: string; retryOf: string }, requestId: string): OutgoingRecord<DeltaEnvelope> {
    const value: DeltaEnvelope = { ...original.value, id: retry.deltaId, requestId, retryOf: retry.retryOf };
    const sealed = this.o.seal.verify(original.value, original.headers[DELTA_SEAL_HEADER]);
    const token = original.headers[ACTOR_TOKEN_HEADER];
    const proof: Record<string, string> = sealed
      ? { [DELTA_SEAL_HEADER]: this.o.seal.seal(value) }
      : token === undefined
        ? {}
        : { [ACTOR_TOKEN_HEADER]: token };
    return {
      topic: PIPELINE_TOPICS.deltas,
      key: recordMessageKey(value.tenant, value.entity, value.key),
      value,
      schema: this.o.schemas.DeltaEnvelope,
      headers: { 'delta-id': value.id, 'request-id': requestId, 'retry-of': retry.retryOf, ...proof },
      ...(!sealed && { timestamp: original.timestamp }),
    };
  }

  private async publish(records: readonly OutgoingRecord<DeltaEnvelope>[]): Promise<void> {
    try {
      await this.o.log.publish(records);
    } catch (cause) {
      // Retry ids are deterministic: running the same retry again sends the same deltas, applied once each.
      throw new DeltabrokerError(
        'DB_DEPENDENCY_UNAVAILABLE',
        'the write log did not acknowledge the retries; run the same retry again',
        { stage: 'rejections' },
        { cause },
      );
    }
  }

  private recordsAt(positions: readonly Position[]): Promise<Map<string, LogRecord<DeltaEnvelope>>> {
    return readRecordsAt(this.o.log, this.o.schemas.DeltaEnvelope, positions);
  }

  private chainsOf(rejections: readonly Rejection[]): Promise<Map<string, ChainState>> {
    const refused = rejections.flatMap((r) => {
      const target = retriable(r);
      return target ? [{ tenant: target.tenant, deltaId: target.deltaId }] : [];
    });
    return walkChains(refused, this.o.verdicts);
  }

  private chainOf(chains: ReadonlyMap<string, ChainState>, r: Rejection): ChainState | undefined {
    const target = retriable(r);
    return target ? chains.get(chainKey(target)) : undefined;
  }
}

const notRefused = (deltaId: string): DeltabrokerError =>
  new DeltabrokerError('DB_NOT_FOUND', `no rejection of delta ${deltaId.slice(0, 128)}`, { field: 'deltaId', rule: 'refused-delta', stage: 'rejections' });
