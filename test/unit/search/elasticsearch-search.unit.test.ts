/** Request shapes of the Elasticsearch adapter's searches: the target index, field hiding, rewrites, results. */
import { errors } from '@elastic/elasticsearch';
import { createElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-search-index';
import { mappingsFor } from '../../../src/search/elastic-family/mappings';
import type { IndexDefinition, SearchIndex } from '../../../src/search/search-port';
import { engineError, mockCluster, route, type MockCluster, type RecordedRequest } from './elasticsearch-mock';

const PEOPLE: IndexDefinition = {
  name: 'people',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'salary', type: 'number' },
    { name: 'ssn', type: 'string' },
  ],
};
const READABLE = new Set(['name', 'email']);

const engineAnswer = {
  took: 3,
  timed_out: false,
  _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
  hits: {
    total: { value: 1, relation: 'eq' },
    max_score: 1.5,
    hits: [{ _index: 'hr_people', _id: 'u1', _score: 1.5, _source: { name: 'Ada', email: 'ada@x.org', salary: 10, ssn: '123' } }],
  },
  aggregations: { names: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'Ada', doc_count: 1 }] } },
};

describe('Elasticsearch adapter: search requests', () => {
  let cluster: MockCluster;
  let index: SearchIndex;
  const sent = (): RecordedRequest => {
    const last = cluster.requests.at(-1);
    if (last === undefined) throw new Error('no request was sent');
    return last;
  };

  beforeEach(async () => {
    cluster = mockCluster();
    // The index is there already: its mapping carries the definition.
    route(cluster, 'GET', '/hr_people/_mapping', () => ({ hr_people__g0: { mappings: mappingsFor(PEOPLE) } }));
    route(cluster, 'POST', '/hr_people/_search', () => engineAnswer);
    index = createElasticsearchSearchIndex(cluster.client, { indexPrefix: 'hr_' });
    await index.search('people', {}); // reads the definition once; the cases count only their own requests
    cluster.requests.length = 0;
  });

  test('targets the entity index, passes the query through, sets from/size defaults', async () => {
    const query = { bool: { must: [{ match: { name: 'ada' } }], filter: [{ range: { salary: { gte: 5 } } }] } };
    await index.search('people', { query });
    expect(sent().path).toBe('/hr_people/_search');
    expect(sent().body).toEqual({ query, from: 0, size: 10 });
  });

  test('a body naming an index is refused and nothing is sent', async () => {
    await expect(index.search('people', { index: 'other', query: { match_all: {} } })).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload.index', rule: 'not-allowed' },
    });
    await expect(index.search('people', { _index: 'other' })).rejects.toMatchObject({ details: { field: 'payload._index' } });
    await expect(index.search('people', { script_fields: { x: {} } })).rejects.toMatchObject({
      details: { field: 'payload.script_fields', rule: 'unsupported-clause' },
    });
    await expect(index.search('people', { size: 5000 })).rejects.toMatchObject({ details: { field: 'payload.size', rule: 'max' } });
    await expect(index.search('people', 'q=*')).rejects.toMatchObject({ code: 'DB_BAD_REQUEST' });
    await expect(index.search('people', { query: { terms: { name: { index: 'users', id: '1', path: 'names' } } } })).rejects.toMatchObject({
      details: { field: 'payload.query.terms.name.index', rule: 'not-allowed' },
    });
    await expect(index.search('people', { query: { more_like_this: { fields: ['name'], like: [{ _index: 'users', _id: '1' }] } } })).rejects.toMatchObject({
      details: { field: 'payload.query.more_like_this.like[0]._index', rule: 'not-allowed' },
    });
    expect(cluster.requests).toEqual([]);
  });

  test('the whole DSL passes when no field is hidden (clauses the Postgres adapter refuses)', async () => {
    const query = { fuzzy: { name: { value: 'adda' } } };
    await index.search('people', { query, post_filter: { term: { 'email.keyword': 'a@b' } }, search_after: [1], min_score: 0.1 });
    expect(sent().body).toEqual({ query, post_filter: { term: { 'email.keyword': 'a@b' } }, search_after: [1], min_score: 0.1, from: 0, size: 10 });
  });

  test('sorts and aggregations on string fields use the keyword sub-field', async () => {
    await index.search('people', {
      sort: ['name', { salary: 'desc' }, { email: { order: 'asc' } }, '_score'],
      aggs: { names: { terms: { field: 'name', size: 3 } } },
    });
    expect(sent().body).toMatchObject({
      sort: ['name.keyword', { salary: 'desc' }, { 'email.keyword': { order: 'asc' } }, '_score'],
      aggs: { names: { terms: { field: 'name.keyword', size: 3 } } },
    });
  });

  test('answers in Elasticsearch shape with the logical index name', async () => {
    const response = await index.search('people', {});
    expect(response).toEqual({
      took: 3,
      timed_out: false,
      hits: {
        total: { value: 1, relation: 'eq' },
        max_score: 1.5,
        hits: [{ _index: 'people', _id: 'u1', _score: 1.5, _source: { name: 'Ada', email: 'ada@x.org', salary: 10, ssn: '123' } }],
      },
      aggregations: engineAnswer.aggregations,
    });
  });

  test('with hidden fields: _source is narrowed in the request and again in the answer', async () => {
    const response = await index.search('people', { _source: ['name', 's*'] }, { readableFields: READABLE });
    expect(sent().body).toMatchObject({ _source: { includes: ['name', 'email'] } });
    expect(response.hits.hits[0]?._source).toEqual({ name: 'Ada' });
    await index.search('people', { _source: { excludes: ['email'] } }, { readableFields: READABLE });
    expect(sent().body).toMatchObject({ _source: { includes: ['name', 'email'], excludes: ['email'] } });
    const none = await index.search('people', { _source: false }, { readableFields: READABLE });
    expect(sent().body).toMatchObject({ _source: false });
    expect(none.hits.hits[0]).not.toHaveProperty('_source');
  });

  test('with hidden fields: any reference to one is DB_FORBIDDEN and nothing is sent', async () => {
    const refused: [unknown, string][] = [
      [{ query: { term: { ssn: '123' } } }, 'payload.query.term.ssn'],
      [{ query: { bool: { should: [{ match: { 'ssn.keyword': '1' } }] } } }, 'payload.query.bool.should[0].match.ssn.keyword'],
      [{ query: { exists: { field: 'salary' } } }, 'payload.query.exists.field'],
      [{ query: { query_string: { query: 'ssn:123' } } }, 'payload.query.query_string'],
      [{ query: { function_score: { script_score: { script: 'doc.ssn' } } } }, 'payload.query.function_score.script_score'],
      [{ query: { multi_match: { query: 'x', fields: ['name', 'ssn^2'] } } }, 'payload.query.multi_match.fields[1]'],
      [{ sort: [{ salary: 'asc' }] }, 'payload.sort[0].salary'],
      [{ aggs: { s: { terms: { field: 'ssn' } } } }, 'payload.aggs.s.terms.field'],
      [{ post_filter: { range: { salary: { gt: 1 } } } }, 'payload.post_filter.range.salary'],
      [{ _source: ['name', 'ssn'] }, 'payload._source[1]'],
      [{ _source: { includes: 'salary' } }, 'payload._source.includes'],
    ];
    const returnsValues: [unknown, string][] = [
      [{ aggs: { top: { top_hits: { size: 1 } } } }, 'payload.aggs.top.top_hits'],
      [{ query: { nested: { path: 'name', query: { match_all: {} }, inner_hits: {} } } }, 'payload.query.nested.inner_hits'],
    ];
    for (const [body, field] of returnsValues) {
      await expect(index.search('people', body, { readableFields: READABLE })).rejects.toMatchObject({
        code: 'DB_FORBIDDEN',
        details: { field, rule: 'clause-not-allowed' },
      });
    }
    for (const [body, field] of refused) {
      await expect(index.search('people', body, { readableFields: READABLE })).rejects.toMatchObject({ code: 'DB_FORBIDDEN', details: { field } });
    }
    expect(cluster.requests).toEqual([]);
  });

  test('with hidden fields: multi_match without fields, or by pattern, searches readable string fields only', async () => {
    await index.search('people', { query: { multi_match: { query: 'ada', type: 'phrase' } } }, { readableFields: READABLE });
    expect(sent().body).toMatchObject({ query: { multi_match: { query: 'ada', type: 'phrase', fields: ['name', 'email'] } } });
    await index.search('people', { query: { multi_match: { query: 'ada', fields: ['n*^2', 'email'] } } }, { readableFields: READABLE });
    expect(sent().body).toMatchObject({ query: { multi_match: { query: 'ada', fields: ['name^2', 'email'] } } });
    await index.search('people', { query: { bool: { must: { multi_match: { query: 'ada', fields: ['zz*'] } } } } }, { readableFields: READABLE });
    expect(sent().body).toMatchObject({ query: { bool: { must: { match_none: {} } } } });
  });

  test('engine errors become typed errors', async () => {
    cluster.mock.clearAll();
    route(cluster, 'POST', '/hr_people/_search', () => engineError(400, 'parsing_exception', 'unknown query [fuzy]'));
    await expect(index.search('people', { query: { fuzy: {} } })).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload', rule: 'rejected-by-engine', engineType: 'parsing_exception' },
    });
    cluster.mock.clearAll();
    route(cluster, 'POST', '/hr_people/_search', () => engineError(404, 'index_not_found_exception'));
    await expect(index.search('people', {})).rejects.toMatchObject({ code: 'DB_NOT_FOUND' });
    cluster.mock.clearAll();
    route(cluster, 'POST', '/hr_people/_search', () => new errors.ConnectionError('connect ECONNREFUSED'));
    await expect(index.search('people', {})).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE', retriable: true });
  });
});
