import type { DeltaEnvelope } from '../../../src/log';
import { Prng } from './prng';

export type Doc = Record<string, unknown>;

/** A generated stream of valid deltas over `keys` merchant accounts, and the state each record must end in. */
export interface DeltaStream {
  deltas: DeltaEnvelope[];
  /** Per record key, its delta ids in the order they were generated (the order the log must keep). */
  orderByKey: Map<string, string[]>;
  /** Per record key, the document after the last delta (undefined when it ends deleted), nulls left out. */
  finalDocs: Map<string, Doc | undefined>;
}

const COUNTRIES = ['DE', 'FR', 'GB', 'NL', 'IT', 'ES', 'PL', 'SE'];
const STATUSES = ['new', 'active', 'suspended', 'closed'];

/**
 * Creates, merging updates (some clear a field with an explicit null), deletes and re-creates, picked by a seeded
 * PRNG so each delta is accepted when the deltas are applied in order: updates and deletes only touch live records.
 * Deltas are made one at a time, so an open-ended run (the soak) takes as many as its rate needs.
 */
export class DeltaSequence {
  /** Per record key, its document after the deltas made so far (absent when deleted or never created). */
  readonly live = new Map<string, Doc>();
  private readonly prng: Prng;
  private made = 0;

  constructor(
    private readonly keys: number,
    private readonly seed: number,
    private readonly keyPrefix = 'rel',
  ) {
    this.prng = new Prng(seed);
  }

  next(): DeltaEnvelope {
    const { prng, live } = this;
    const i = this.made++;
    const key = `${this.keyPrefix}-${prng.int(0, this.keys - 1)}`;
    const current = live.get(key);
    let operation: 'create' | 'update' | 'delete';
    let payload: Doc;
    if (!current) {
      operation = 'create';
      payload = { merchantId: key, name: `merchant ${key} #${i}`, country: prng.pick(COUNTRIES), mcc: prng.int(1000, 9999) };
      live.set(key, { ...payload });
    } else if (prng.chance(0.04)) {
      operation = 'delete';
      payload = { merchantId: key };
      live.delete(key);
    } else {
      operation = 'update';
      payload = { merchantId: key, name: `merchant ${key} #${i}` };
      if (prng.chance(0.5)) payload.country = prng.chance(0.1) ? null : prng.pick(COUNTRIES);
      if (prng.chance(0.5)) payload.mcc = prng.chance(0.1) ? null : prng.int(1000, 9999);
      if (prng.chance(0.3)) payload.status = prng.pick(STATUSES);
      live.set(key, { ...current, ...payload });
    }
    return {
      id: `rel-${this.seed}-${i}`,
      requestId: null,
      tenant: 'acme',
      entity: 'merchant_account',
      operation,
      key,
      payload: JSON.stringify(payload),
      actor: { user: 'reliability', roles: ['admin'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    };
  }
}

/** `count` deltas of a DeltaSequence, with each key's order and end state. */
export function generateDeltaStream(count: number, keys: number, seed: number, keyPrefix = 'rel'): DeltaStream {
  const sequence = new DeltaSequence(keys, seed, keyPrefix);
  const orderByKey = new Map<string, string[]>();
  const deltas: DeltaEnvelope[] = [];
  for (let i = 0; i < count; i++) {
    const delta = sequence.next();
    deltas.push(delta);
    const order = orderByKey.get(delta.key) ?? [];
    order.push(delta.id);
    orderByKey.set(delta.key, order);
  }
  const finalDocs = new Map<string, Doc | undefined>();
  for (const key of orderByKey.keys()) {
    const doc = sequence.live.get(key);
    finalDocs.set(key, doc && withoutNulls(doc));
  }
  return { deltas, orderByKey, finalDocs };
}

export function withoutNulls(doc: Doc): Doc {
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== null));
}
