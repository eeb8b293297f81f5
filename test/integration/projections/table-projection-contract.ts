/**
 * The table projection on one SQL backend, fed hand-made batches (no log): table shape, typed columns,
 * merges, deletes, per-batch transactions, checkpoints across redelivery and crashes, schema migration,
 * unprojectable events and injection-shaped input. Run against PostgreSQL; the cases live in
 * the `cases-*.ts` files beside this one.
 */
import { qualifiedTable } from '../../support/entities';
import { TableProjection } from '../../../projections/postgres/table-projection';
import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import type { SqlClient } from '../../../src/store/sql-client';
import { applyCases } from './cases-apply';
import { columnCases } from './cases-columns';
import { heldRoundCases } from './cases-held-rounds';
import { keyCases } from './cases-keys';
import { tableCases } from './cases-table';
import type { ProjectionContext, Row } from './projection-context';
import { uniqueEntity } from './projection-fixtures';

export interface SqlBackend {
  sql: SqlClient;
  close(): Promise<void>;
}

export function describeTableProjectionContract(name: string, open: () => Promise<SqlBackend>): void {
  describe(`table projection on ${name}`, () => {
    let backend: SqlBackend | undefined;
    const sql = (): SqlClient => {
      if (!backend) throw new Error('backend not open');
      return backend.sql;
    };
    const context: ProjectionContext = {
      sql,
      projectionOf: (entities, client = sql(), projector = uniqueEntity('projector')) =>
        new TableProjection({ sql: client, entities, logger: silentLogger(), projector }),
      rows: async (config) => (await sql().query<Row>(`select * from ${qualifiedTable(config)} order by "${config.key[0]}"`)).rows,
      rowOf: async (config, key) => (await sql().query<Row>(`select * from ${qualifiedTable(config)} where "${config.key[0]}" = $1`, [key])).rows[0],
    };

    beforeAll(async () => {
      backend = await open();
      await migrate(backend.sql, silentLogger());
    });
    afterAll(async () => {
      await backend?.close();
    });

    describe('the table: shape, migration, refusals, injection, reads, waitFor', () => tableCases(context));
    describe('applying batches', () => applyCases(context));
    describe('rounds of a projection that keeps up, in one statement', () => heldRoundCases(context));
    describe('keys and payloads', () => keyCases(context));
    describe('typed columns', () => columnCases(context));
  });
}
