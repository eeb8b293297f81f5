/** Request shapes of the Elasticsearch adapter's writes: index creation and mappings, bulk upserts, deletes. */
import { createElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-search-index';
import type { IndexDefinition } from '../../../src/search/search-port';
import { engineError, mockCluster, route, type MockCluster } from './elasticsearch-mock';

const ORDERS: IndexDefinition = {
  name: 'orders',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'quantity', type: 'integer' },
    { name: 'amount', type: 'number' },
    { name: 'paid', type: 'boolean' },
    { name: 'placed', type: 'timestamp' },
    { name: 'lines', type: 'object' },
  ],
};

const EXPECTED_PROPERTIES = {
  customer: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 8191 } } },
  quantity: { type: 'long' },
  amount: { type: 'double' },
  paid: { type: 'boolean' },
  placed: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
  lines: { type: 'object', enabled: false },
};

const bulkOk = () => ({ took: 1, errors: false, items: [] });

describe('Elasticsearch adapter: ensureIndex', () => {
  let cluster: MockCluster;
  beforeEach(() => {
    cluster = mockCluster();
  });

  test('creates a missing index with mappings derived from the definition', async () => {
    route(cluster, 'HEAD', '/t1_orders', () => engineError(404, 'index_not_found_exception'));
    route(cluster, 'PUT', '/t1_orders', () => ({ acknowledged: true }));
    const index = createElasticsearchSearchIndex(cluster.client, { indexPrefix: 't1_', settings: { number_of_shards: 1 } });
    await index.ensureIndex(ORDERS);
    const created = cluster.requests.find((r) => r.method === 'PUT');
    expect(created?.path).toBe('/t1_orders');
    expect(created?.body).toEqual({
      mappings: { dynamic: false, _meta: { deltabroker_definition: ORDERS }, properties: EXPECTED_PROPERTIES },
      settings: { number_of_shards: 1 },
    });
  });

  test('updates the mapping of an existing index', async () => {
    route(cluster, 'HEAD', '/orders', () => '');
    route(cluster, 'PUT', '/orders/_mapping', () => ({ acknowledged: true }));
    await createElasticsearchSearchIndex(cluster.client).ensureIndex(ORDERS);
    const put = cluster.requests.find((r) => r.method === 'PUT');
    expect(put?.path).toBe('/orders/_mapping');
    expect(put?.body).toEqual({ dynamic: false, _meta: { deltabroker_definition: ORDERS }, properties: EXPECTED_PROPERTIES });
  });

  test('refuses an invalid definition before sending anything', async () => {
    await expect(createElasticsearchSearchIndex(cluster.client).ensureIndex({ name: 'Orders', fields: [] })).rejects.toMatchObject({ code: 'DB_VALIDATION' });
    expect(cluster.requests).toEqual([]);
  });

  test('a mapping conflict from the engine is DB_VALIDATION with its reason', async () => {
    route(cluster, 'HEAD', '/orders', () => '');
    route(cluster, 'PUT', '/orders/_mapping', () =>
      engineError(400, 'illegal_argument_exception', 'mapper [quantity] cannot be changed from type [long] to [double]'),
    );
    await expect(createElasticsearchSearchIndex(cluster.client).ensureIndex(ORDERS)).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      message: expect.stringContaining('cannot be changed'),
      details: { engineStatus: 400, engineType: 'illegal_argument_exception' },
    });
  });
});

describe('Elasticsearch adapter: bulk writes', () => {
  let cluster: MockCluster;
  beforeEach(async () => {
    cluster = mockCluster();
    route(cluster, 'HEAD', '/orders', () => '');
    route(cluster, 'PUT', '/orders/_mapping', () => ({ acknowledged: true }));
  });

  async function ready(options = {}) {
    const index = createElasticsearchSearchIndex(cluster.client, options);
    await index.ensureIndex(ORDERS);
    cluster.requests.length = 0;
    return index;
  }

  test('upserts index each document with its external version; only the last batch waits for refresh', async () => {
    route(cluster, 'POST', '/_bulk', bulkOk);
    const index = await ready({ batchSize: 2 });
    await index.upsert('orders', [
      { id: 'o1', version: 1, source: { customer: 'ada', quantity: 2 } },
      { id: 'o2', version: 7, source: { customer: 'bob' } },
      { id: 'o3', version: 3, source: { paid: true } },
    ]);
    expect(cluster.requests.map((r) => r.querystring)).toEqual([{ refresh: 'false' }, { refresh: 'wait_for' }]);
    expect(cluster.requests[0]?.body).toEqual([
      { index: { _index: 'orders', _id: 'o1', version: 1, version_type: 'external_gte' } },
      { customer: 'ada', quantity: 2 },
      { index: { _index: 'orders', _id: 'o2', version: 7, version_type: 'external_gte' } },
      { customer: 'bob' },
    ]);
    expect(cluster.requests[1]?.body).toEqual([{ index: { _index: 'orders', _id: 'o3', version: 3, version_type: 'external_gte' } }, { paid: true }]);
  });

  test('the refresh policy is configurable', async () => {
    route(cluster, 'POST', '/_bulk', bulkOk);
    const index = await ready({ refresh: true });
    await index.upsert('orders', [{ id: 'o1', version: 1, source: {} }]);
    await index.delete('orders', ['o1']);
    expect(cluster.requests.map((r) => r.querystring.refresh)).toEqual(['true', 'true']);
  });

  test('a version conflict (an older event) is not an error; a refused document is', async () => {
    const conflict = { index: { _id: 'o1', status: 409, error: { type: 'version_conflict_engine_exception', reason: 'older' } } };
    const refused = { index: { _id: 'o2', status: 400, error: { type: 'document_parsing_exception', reason: 'bad' } } };
    let answer: unknown[] = [conflict];
    route(cluster, 'POST', '/_bulk', () => ({ took: 1, errors: true, items: answer }));
    const index = await ready();
    await index.upsert('orders', [{ id: 'o1', version: 1, source: {} }]);
    answer = [conflict, refused];
    await expect(
      index.upsert('orders', [
        { id: 'o1', version: 1, source: {} },
        { id: 'o2', version: 1, source: {} },
      ]),
    ).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'docs[id=o2]', engineType: 'document_parsing_exception' },
    });
    answer = [{ index: { _id: 'o3', status: 429, error: { type: 'es_rejected_execution_exception', reason: 'queue full' } } }];
    await expect(index.upsert('orders', [{ id: 'o3', version: 1, source: {} }])).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE', retriable: true });
  });

  test('documents are validated against the definition before anything is sent', async () => {
    route(cluster, 'POST', '/_bulk', bulkOk);
    const index = await ready();
    await expect(index.upsert('orders', [{ id: 'o1', version: 1, source: { quantity: 1.5 } }])).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'docs[0].source.quantity' },
    });
    expect(cluster.requests).toEqual([]);
  });

  test('deletes are bulk delete operations; a missing document is not an error', async () => {
    route(cluster, 'POST', '/_bulk', () => ({
      took: 1,
      errors: true,
      items: [{ delete: { _id: 'gone', status: 404, error: { type: 'not_found', reason: 'x' } } }],
    }));
    const index = await ready();
    await index.delete('orders', ['gone', 'o2']);
    expect(cluster.requests[0]?.body).toEqual([{ delete: { _index: 'orders', _id: 'gone' } }, { delete: { _index: 'orders', _id: 'o2' } }]);
    expect(cluster.requests[0]?.querystring).toEqual({ refresh: 'wait_for' });
  });

  test('an index not defined in this process is read back from the mapping _meta', async () => {
    route(cluster, 'GET', '/orders/_mapping', () => ({ orders: { mappings: { _meta: { deltabroker_definition: ORDERS }, properties: {} } } }));
    route(cluster, 'POST', '/_bulk', bulkOk);
    const index = createElasticsearchSearchIndex(cluster.client);
    await index.upsert('orders', [{ id: 'o1', version: 1, source: { customer: 'ada' } }]);
    await index.upsert('orders', [{ id: 'o2', version: 1, source: { customer: 'bob' } }]);
    expect(cluster.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /orders/_mapping', 'POST /_bulk', 'POST /_bulk']);
  });

  test('an index that does not exist is DB_NOT_FOUND', async () => {
    route(cluster, 'GET', '/missing/_mapping', () => engineError(404, 'index_not_found_exception'));
    await expect(createElasticsearchSearchIndex(cluster.client).upsert('missing', [])).rejects.toMatchObject({ code: 'DB_NOT_FOUND' });
  });
});
