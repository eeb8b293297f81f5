/**
 * Request shapes of the Elasticsearch adapter's shadow builds: a shadow is an alias on a new generation index,
 * the swap is one `_aliases` request. `@elastic/elasticsearch-mock` answers only what each test routes, with no
 * alias, versioning or reindex semantics of its own, so these tests check what is sent and how answers are
 * read; the behaviour is the search contract's (contract-shadow.ts), run against a real Elasticsearch where
 * Docker is available.
 */
import { createElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-search-index';
import type { IndexDefinition } from '../../../src/search/search-port';
import { engineError, mockCluster, route, type MockCluster, type RecordedRequest } from './elasticsearch-mock';

const ORDERS: IndexDefinition = { name: 'orders', fields: [{ name: 'customer', type: 'string' }] };
const SHADOW: IndexDefinition = { ...ORDERS, name: 'orders__rebuild' };
const GENERATION = 'orders__rebuild__gm1abc';

/** `GET /<name>` (indices.get) answers the concrete indices behind each known name; others are 404. */
function concrete(cluster: MockCluster, names: Record<string, string[]>): void {
  route(cluster, 'GET', '/:index', (r) => {
    const indices = names[r.path.slice(1)];
    return indices === undefined ? engineError(404, 'index_not_found_exception') : Object.fromEntries(indices.map((i) => [i, {}]));
  });
}

const sent = (cluster: MockCluster, method: string, path?: string): RecordedRequest[] =>
  cluster.requests.filter((r) => r.method === method && (path === undefined || r.path === path));

describe('Elasticsearch adapter: shadow builds', () => {
  let cluster: MockCluster;
  beforeEach(() => {
    cluster = mockCluster();
  });

  test('createShadow makes a generation index with the shadow as its alias, then copies the live documents with their versions', async () => {
    concrete(cluster, { orders: ['orders'] });
    route(cluster, 'PUT', '/:index', () => ({ acknowledged: true }));
    route(cluster, 'POST', '/_reindex', () => ({ total: 2, created: 2, failures: [] }));
    await createElasticsearchSearchIndex(cluster.client).createShadow(SHADOW, 'orders');

    const [created] = sent(cluster, 'PUT');
    expect(created?.path).toMatch(/^\/orders__rebuild__g[0-9a-z]+$/);
    expect(created?.body).toMatchObject({ aliases: { orders__rebuild: {} }, mappings: { _meta: { deltabroker_definition: SHADOW } } });
    const [reindex] = sent(cluster, 'POST', '/_reindex');
    expect(reindex?.body).toEqual({ source: { index: 'orders' }, dest: { index: created?.path.slice(1), version_type: 'external' } });
    expect(reindex?.querystring).toMatchObject({ refresh: 'true', wait_for_completion: 'true' });
  });

  test('createShadow first deletes the indices of an earlier shadow of the same name', async () => {
    concrete(cluster, { orders__rebuild: ['orders__rebuild__gold'] });
    route(cluster, 'DELETE', '/:index', () => ({ acknowledged: true }));
    route(cluster, 'PUT', '/:index', () => ({ acknowledged: true }));
    await createElasticsearchSearchIndex(cluster.client).createShadow(SHADOW);
    expect(sent(cluster, 'DELETE').map((r) => r.path)).toEqual(['/orders__rebuild__gold']);
    expect(sent(cluster, 'POST', '/_reindex')).toEqual([]);
  });

  test('swapShadow moves the aliases and removes the replaced index in one request; the live name keeps its own name in results', async () => {
    route(cluster, 'GET', '/:index/_mapping', () => ({ [GENERATION]: { mappings: { _meta: { deltabroker_definition: SHADOW } } } }));
    concrete(cluster, { orders__rebuild: [GENERATION], orders: ['orders'] });
    route(cluster, 'POST', '/_aliases', () => ({ acknowledged: true }));
    route(cluster, 'POST', '/:index/_search', () => ({ took: 1, timed_out: false, hits: { max_score: 1, hits: [{ _id: 'o1', _score: 1, _source: {} }] } }));
    const index = createElasticsearchSearchIndex(cluster.client);
    await index.swapShadow('orders__rebuild', 'orders');

    expect(sent(cluster, 'POST', '/_aliases')[0]?.body).toEqual({
      actions: [
        { remove: { index: GENERATION, alias: 'orders__rebuild' } },
        { add: { index: GENERATION, alias: 'orders' } },
        { remove_index: { index: 'orders' } },
      ],
    });
    const response = await index.search('orders', {});
    expect(response.hits.hits[0]?._index).toBe('orders');
    expect(sent(cluster, 'POST', '/orders/_search')).toHaveLength(1);
  });

  test('a live name that is already an alias has its old generation removed', async () => {
    route(cluster, 'GET', '/:index/_mapping', () => ({ [GENERATION]: { mappings: { _meta: { deltabroker_definition: SHADOW } } } }));
    concrete(cluster, { orders__rebuild: [GENERATION], orders: ['orders__rebuild__gprevious'] });
    route(cluster, 'POST', '/_aliases', () => ({ acknowledged: true }));
    await createElasticsearchSearchIndex(cluster.client).swapShadow('orders__rebuild', 'orders');
    expect(sent(cluster, 'POST', '/_aliases')[0]?.body).toMatchObject({
      actions: expect.arrayContaining([{ remove_index: { index: 'orders__rebuild__gprevious' } }]),
    });
  });

  test('a shadow that is a plain index, not an alias of one generation, is refused before anything changes', async () => {
    route(cluster, 'GET', '/:index/_mapping', () => ({ orders__rebuild: { mappings: { _meta: { deltabroker_definition: SHADOW } } } }));
    concrete(cluster, { orders__rebuild: ['orders__rebuild'] });
    await expect(createElasticsearchSearchIndex(cluster.client).swapShadow('orders__rebuild', 'orders')).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { rule: 'index-exists' },
    });
    expect(sent(cluster, 'POST', '/_aliases')).toEqual([]);
  });

  test('drop deletes the concrete indices behind a name; an absent name sends no delete', async () => {
    concrete(cluster, { orders__rebuild: [GENERATION] });
    route(cluster, 'DELETE', '/:index', () => ({ acknowledged: true }));
    const index = createElasticsearchSearchIndex(cluster.client);
    await index.drop('orders__rebuild');
    await index.drop('orders__verify');
    expect(sent(cluster, 'DELETE').map((r) => r.path)).toEqual([`/${GENERATION}`]);
    expect(await index.exists('orders__verify')).toBe(false);
    expect(await index.exists('orders__rebuild')).toBe(true);
  });
});
