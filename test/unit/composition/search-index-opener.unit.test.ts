import type { Config } from '../../../src/config';
import { openSearchIndex } from '../../../src/composition/ports';
import type { SqlClient } from '../../../src/store/sql-client';

const loadedAdapters = (): string[] => Object.keys(require.cache).filter((file) => /search[\\/](elasticsearch|opensearch)[\\/]/.test(file));
const withSearch = (search: Partial<Config['search']>): Config => ({ search }) as unknown as Config;
const sql = {} as SqlClient;

describe('openSearchIndex', () => {
  test('on the Postgres adapter, neither engine adapter (nor its client library) is loaded', async () => {
    const opened = await openSearchIndex(withSearch({}), sql);
    expect(opened.writesIn).toBeDefined();
    expect(loadedAdapters()).toEqual([]);
  });

  test.each([
    ['OpenSearch', { opensearchUrl: 'http://127.0.0.1:1' }, /opensearch-search-index/],
    ['Elasticsearch', { elasticsearchUrl: 'http://127.0.0.1:1' }, /elasticsearch-search-index/],
  ])('a configured %s is loaded on demand and reached', async (name, search, adapter) => {
    await expect(openSearchIndex(withSearch(search), sql)).rejects.toMatchObject({
      code: 'DB_DEPENDENCY_UNAVAILABLE',
      message: expect.stringContaining(`${name} is not reachable`),
    });
    expect(loadedAdapters().some((file) => adapter.test(file))).toBe(true);
  });
});
