/** Writes inside a caller's transaction (a projector's): they commit or roll back with it. Run on both engines. */
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import type { IndexDefinition } from '../../../src/search/search-port';
import type { SqlClient } from '../../../src/store/sql-client';

const EVENTS: IndexDefinition = { name: 'events', fields: [{ name: 'kind', type: 'string' }] };

export function describeTransactionalWrites(name: string, open: () => Promise<{ sql: SqlClient; close(): Promise<void> }>): void {
  describe(`Postgres search adapter: writes in the caller's transaction (${name})`, () => {
    let backend: { sql: SqlClient; close(): Promise<void> };

    beforeAll(async () => {
      backend = await open();
      await createPostgresSearchIndex(backend.sql).ensureIndex(EVENTS);
    });

    afterAll(async () => {
      await backend.close();
    });

    const ids = async () => (await createPostgresSearchIndex(backend.sql).search('events', { sort: ['kind'] })).hits.hits.map((h) => h._id);

    test('a rolled-back transaction leaves no trace; a committed one is visible', async () => {
      // A fresh adapter, so the definition is looked up inside the transaction too.
      const index = createPostgresSearchIndex(backend.sql, { batchSize: 2 });
      await expect(
        backend.sql.transaction(async (tx) => {
          await index.writeIn(tx).upsert(
            'events',
            [1, 2, 3].map((n) => ({ id: `e${n}`, version: 1, source: { kind: `k${n}` } })),
          );
          throw new Error('projector failed before its checkpoint');
        }),
      ).rejects.toThrow('projector failed');
      expect(await ids()).toEqual([]);
      await backend.sql.transaction(async (tx) => {
        const writes = createPostgresSearchIndex(backend.sql).writeIn(tx);
        await writes.upsert(
          'events',
          [1, 2, 3].map((n) => ({ id: `e${n}`, version: 1, source: { kind: `k${n}` } })),
        );
        await writes.delete('events', ['e2']);
      });
      expect(await ids()).toEqual(['e1', 'e3']);
    });
  });
}
