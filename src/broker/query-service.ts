import type { Principal } from '../auth/principal';
import { DeltabrokerError } from '../errors';
import type { LogPosition } from '../log';
import type { SearchIndex, SearchResponse } from '../search';
import { compileRql, decodeCount, decodeRow, totalFromPage } from '../store/rql';
import type { SqlClient } from '../store/sql-client';
import { assertMayPerform, unknownEntity, physicalNamesOf, readableFields, type EntityConfig, type EntityConfigSource } from '../tenant';

/** Reads repeat a few statement shapes with other values: the server keeps them parsed and planned. */
const PREPARED = { prepare: true } as const;

/** Something that can wait until a projection has applied a position (the table and search projectors). */
export interface ProjectionProgress {
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean>;
}

export interface ReadResult {
  items: Record<string, unknown>[];
  count: number;
  /** RQL of the next page, when this page came back full. */
  next?: string;
}

export interface QueryServiceOptions {
  sql: SqlClient;
  entities: EntityConfigSource;
  search: SearchIndex;
  tables: ProjectionProgress;
  index: ProjectionProgress;
  /** How long a read that names a position waits for the projection to reach it. */
  consistencyTimeoutMs: number;
}

/**
 * The read side of the storage broker (seed 2.2): `read` runs RQL against the entity's Postgres projection,
 * `search` runs an Elasticsearch query DSL body against the entity's index. Both return only the fields the
 * caller's roles may read, and may first wait until the projection has applied a given write.
 */
export class QueryService {
  constructor(private readonly o: QueryServiceOptions) {}

  async read(principal: Principal, entity: string, query: unknown, after?: LogPosition): Promise<ReadResult> {
    const config = await this.#authorize(principal, entity, 'read');
    if (typeof query !== 'string') {
      throw new DeltabrokerError('DB_VALIDATION', 'read takes an RQL string as payload, e.g. "eq(country,DE)"', {
        field: 'payload',
        rule: 'rql-string',
        stage: 'read',
      });
    }
    await this.#catchUp(this.o.tables, after, 'read');
    const compiled = compileRql(query, config, { readableFields: readableFields(config, principal.roles, 'read') });
    // The page first: one that comes back short tells the total itself (a point read always does), so the count
    // statement, a second round trip and a second execution, runs only when the page cannot tell.
    const rows = await this.o.sql.query(compiled.text, compiled.values, PREPARED);
    const items = rows.rows.map((row) => decodeRow(row, compiled));
    const total = totalFromPage(compiled, items.length) ?? decodeCount((await this.o.sql.query(compiled.countText, compiled.countValues, PREPARED)).rows[0]);
    return { items, count: total, ...(compiled.offset + items.length < total && { next: compiled.nextQuery }) };
  }

  async search(principal: Principal, entity: string, body: unknown, after?: LogPosition): Promise<SearchResponse> {
    const config = await this.#authorize(principal, entity, 'search');
    await this.#catchUp(this.o.index, after, 'search');
    return this.o.search.search(physicalNamesOf(config).index, body, { readableFields: readableFields(config, principal.roles, 'search') });
  }

  async #authorize(principal: Principal, entity: string, operation: 'read' | 'search'): Promise<EntityConfig> {
    const config = await this.o.entities.get(principal.tenant, entity);
    if (!config) throw unknownEntity(principal.tenant, entity, operation);
    try {
      assertMayPerform(config, principal.roles, operation);
    } catch (error) {
      if (error instanceof DeltabrokerError) error.details.stage = operation;
      throw error;
    }
    return config;
  }

  async #catchUp(progress: ProjectionProgress, after: LogPosition | undefined, stage: string): Promise<void> {
    if (!after) return;
    if (!(await progress.waitFor(after, this.o.consistencyTimeoutMs))) {
      throw new DeltabrokerError(
        'DB_TIMEOUT',
        `the projection did not reach ${after.topic}/${after.partition}/${after.offset} within ${this.o.consistencyTimeoutMs} ms`,
        {
          field: 'dispatch.after',
          rule: 'consistency',
          stage,
        },
      );
    }
  }
}
