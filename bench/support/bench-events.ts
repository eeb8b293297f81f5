import { randomUUID } from 'node:crypto';
import type { EntityEvent } from '../../src/log';
import type { EntityConfig } from '../../src/tenant';

/** The entity the projection and replay benchmarks write: one field of every type. */
export function benchEntity(entity: string): Record<string, unknown> {
  return {
    tenant: 'bench',
    entity,
    key: ['accountId'],
    fields: {
      accountId: { type: 'string', required: true },
      name: { type: 'string' },
      mcc: { type: 'integer' },
      score: { type: 'number' },
      active: { type: 'boolean' },
      openedAt: { type: 'timestamp' },
      address: { type: 'object' },
    },
    roles: {},
  };
}

export interface BenchEvents {
  events: EntityEvent[];
  /** Per event, the row a projector writing every event would write (the COPY baseline's rows). */
  images: unknown[][];
  finalVersions: Map<string, number>;
}

/** `eventCount` events over `keyCount` keys: creates, then updates; each carries the record's whole state. */
export function makeBenchEvents(config: EntityConfig, eventCount: number, keyCount: number): BenchEvents {
  const events: EntityEvent[] = [];
  const images: unknown[][] = [];
  const finalVersions = new Map<string, number>();
  for (let i = 0; i < eventCount; i += 1) {
    const key = `acct-${i % keyCount}`;
    const version = Math.floor(i / keyCount) + 1;
    const doc = {
      accountId: key,
      name: `Account ${i}`,
      mcc: 5000 + (i % 1000),
      score: i / 7,
      active: i % 2 === 0,
      openedAt: '2026-01-02T03:04:05Z',
      address: { city: 'Lyon', zip: String(69000 + (i % 10)) },
    };
    const event: EntityEvent = {
      eventId: randomUUID(),
      deltaId: randomUUID(),
      requestId: null,
      tenant: config.tenant,
      entity: config.entity,
      operation: version === 1 ? 'create' : 'update',
      key,
      version,
      payload: JSON.stringify(doc),
      actor: { user: 'bench', roles: [] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      recordedAt: Date.now(),
    };
    events.push(event);
    finalVersions.set(key, version);
    images.push([
      key,
      doc.name,
      doc.mcc,
      doc.score,
      doc.active,
      doc.openedAt,
      JSON.stringify(doc.address),
      JSON.stringify(doc),
      version,
      event.eventId,
      `bench/0/${i}`,
      new Date(event.recordedAt).toISOString(),
    ]);
  }
  return { events, images, finalVersions };
}
