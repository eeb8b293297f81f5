/** Entities, events and a fault-injecting SQL client for the table projector suites. */
import { randomUUID } from 'node:crypto';
import type { EntityEvent, LogRecord, RecordBatch } from '../../../src/log';
import type { QueryOptions, SqlClient, SqlExecutor } from '../../../src/store/sql-client';
import { InMemoryEntityConfigSource, type EntityConfig } from '../../../src/tenant';

let entitySeq = 0;

/** A fresh entity name per test, so tests sharing one database never share a table or topic. */
export const uniqueEntity = (prefix: string): string => `${prefix}_${process.pid}_${++entitySeq}`;

/** An account entity with one field of every type. */
export function accountConfig(entity: string, extraFields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tenant: 'acme',
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
      ...extraFields,
    },
    roles: { admin: { operations: '*' } },
  };
}

export function configSource(...configs: Record<string, unknown>[]): { entities: InMemoryEntityConfigSource; configs: EntityConfig[] } {
  const entities = new InMemoryEntityConfigSource();
  return { entities, configs: configs.map((c) => entities.put(c)) };
}

export interface EventSpec {
  operation: EntityEvent['operation'];
  key: string;
  version: number;
  payload?: Record<string, unknown> | null;
}

export function entityEvent(config: EntityConfig, spec: EventSpec): EntityEvent {
  return {
    eventId: randomUUID(),
    deltaId: randomUUID(),
    requestId: null,
    tenant: config.tenant,
    entity: config.entity,
    operation: spec.operation,
    key: spec.key,
    version: spec.version,
    payload: spec.operation === 'delete' ? null : JSON.stringify(spec.payload ?? {}),
    actor: { user: 'tester', roles: ['admin'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.UTC(2026, 0, 1),
    recordedAt: Date.UTC(2026, 0, 1) + spec.version * 1000,
  };
}

/** A batch as the log hands it over: consecutive offsets of one partition, starting at `firstOffset`. */
export function batchOf(config: EntityConfig, firstOffset: number, events: readonly EntityEvent[], partition = 0): RecordBatch<EntityEvent> {
  const topic = config.persistence.topic;
  const records: LogRecord<EntityEvent>[] = events.map((value, i) => ({
    topic,
    partition,
    offset: String(firstOffset + i),
    key: `${value.tenant}/${value.entity}/${value.key}`,
    value,
    headers: {},
    timestamp: value.recordedAt,
    schemaId: 1,
  }));
  return { topic, partition, records, rejected: 0, highWatermark: String(firstOffset + events.length) };
}

export interface FaultPlan {
  /** Throws this instead of running a statement, when it returns an error. */
  beforeStatement?: (text: string) => Error | undefined;
  /** Throws this after a transaction committed (a crash before the caller learns of the commit). */
  afterCommit?: () => Error | undefined;
  /** Throws this after a statement outside a transaction ran, and so committed. */
  afterQuery?: () => Error | undefined;
}

/** The real client with faults injected around it: every statement still runs on the real database. */
export function faultySql(sql: SqlClient, plan: FaultPlan): SqlClient {
  return {
    query: async <R>(text: string, values?: readonly unknown[], options?: QueryOptions) => {
      const before = plan.beforeStatement?.(text);
      if (before) throw before;
      const result = await sql.query<R>(text, values, options);
      const after = plan.afterQuery?.();
      if (after) throw after;
      return result;
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const result = await sql.transaction((tx) =>
        work({
          query: (text, values) => {
            const fault = plan.beforeStatement?.(text);
            if (fault) return Promise.reject(fault);
            return tx.query(text, values);
          },
        }),
      );
      const fault = plan.afterCommit?.();
      if (fault) throw fault;
      return result;
    },
    close: () => sql.close(),
  };
}

/** pg answers bigint as a string: compare as numbers. */
export const asNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
