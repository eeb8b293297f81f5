/** The shared Elasticsearch/OpenSearch core's checks that need no engine: answers, prefixes, refusals, timestamps. */
import { createElasticFamilySearchIndex } from '../../../src/search/elastic-family/elastic-family-search-index';
import { fromEngineError } from '../../../src/search/elastic-family/engine-errors';
import { EngineResponseError, type EngineTransport } from '../../../src/search/elastic-family/engine-transport';
import { engineTimestamp } from '../../../src/search/elastic-family/mappings';
import { createShadowIndex, swapShadowAlias } from '../../../src/search/elastic-family/shadow-aliases';
import { readSearchAnswer, type EngineSearchAnswer } from '../../../src/search/elastic-family/search-answer';
import type { IndexDefinition } from '../../../src/search/search-port';

const NOTES: IndexDefinition = { name: 'notes', fields: [{ name: 'title', type: 'string' }] };
const noTransport: EngineTransport = {
  product: 'OpenSearch',
  request: () => Promise.reject(new Error('no request expected')),
  close: () => Promise.resolve(),
};

const answer = (shards: EngineSearchAnswer['_shards']): EngineSearchAnswer => ({
  took: 1,
  timed_out: false,
  _shards: shards,
  hits: { total: { value: 1, relation: 'eq' }, max_score: 1, hits: [{ _id: 'n1', _score: 1, _source: { title: 'kept' } }] },
});

describe('Elasticsearch-family core', () => {
  test('an answer some shards failed to give is an error, not partial results', () => {
    const partial = answer({ total: 3, successful: 2, failed: 1, failures: [{ reason: { type: 'script_exception', reason: 'runtime error' } }] });
    expect(() => readSearchAnswer(partial, NOTES, { includes: [], excludes: [] }, undefined, 'OpenSearch')).toThrow(
      expect.objectContaining({ code: 'DB_DEPENDENCY_UNAVAILABLE', message: expect.stringContaining('2 of 3 shards') }),
    );
    const whole = readSearchAnswer(answer({ total: 3, successful: 3, failed: 0 }), NOTES, { includes: [], excludes: [] }, undefined, 'OpenSearch');
    expect(whole.hits.hits).toEqual([{ _index: 'notes', _id: 'n1', _score: 1, _source: { title: 'kept' } }]);
  });

  test('an index prefix that cannot start an index name is refused when the adapter is made', () => {
    for (const indexPrefix of ['Prod_', '_prod', '-x', 'a b', 'a/b', 'a,b', 'x'.repeat(65)]) {
      expect(() => createElasticFamilySearchIndex(noTransport, { indexPrefix })).toThrow(
        expect.objectContaining({ code: 'DB_VALIDATION', details: expect.objectContaining({ field: 'indexPrefix' }) }),
      );
    }
    for (const indexPrefix of ['', 'prod_', 'tenant-7_']) expect(() => createElasticFamilySearchIndex(noTransport, { indexPrefix })).not.toThrow();
  });

  test('an engine 400 names the part of the request it refused', () => {
    const refused = new EngineResponseError('Elasticsearch', 400, { error: { type: 'illegal_argument_exception', reason: 'bad shards' } });
    expect(fromEngineError(refused, { stage: 'search-index', field: 'index' })).toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'index', rule: 'rejected-by-engine', engineType: 'illegal_argument_exception' },
    });
    expect(fromEngineError(refused)).toMatchObject({ details: { field: 'payload' } });
  });

  test('timestamps the engines refuse are rewritten to the same instant', () => {
    expect(engineTimestamp('2024-01-01 10:00')).toBe('2024-01-01T10:00');
    expect(engineTimestamp('2024-01-01 10:00:30.25z')).toBe('2024-01-01T10:00:30.25Z');
    expect(engineTimestamp('2024-01-01')).toBe('2024-01-01');
    expect(engineTimestamp('2024-01-01T10:00+01:00')).toBe('2024-01-01T10:00+01:00');
  });

  test('a shadow whose index a retried request already made is built; another refusal of the index still fails', async () => {
    // What a client that timed out and sent the PUT again reports: the engine made the index the first time.
    const refusingPut = (type: string): EngineTransport & { puts: string[] } => {
      const puts: string[] = [];
      return {
        product: 'OpenSearch',
        puts,
        request: (request) => {
          if (request.method === 'GET') return Promise.reject(new EngineResponseError('OpenSearch', 404, {}));
          puts.push(request.path);
          return Promise.reject(new EngineResponseError('OpenSearch', 400, { error: { type, reason: 'refused' } }));
        },
        close: () => Promise.resolve(),
      };
    };
    const retried = refusingPut('resource_already_exists_exception');
    await createShadowIndex(retried, { name: 'notes__rebuild', mappings: {} });
    expect(retried.puts).toEqual([expect.stringMatching(/^\/notes__rebuild__g[0-9a-z]+$/)]);
    await expect(createShadowIndex(refusingPut('mapper_parsing_exception'), { name: 'notes__rebuild', mappings: {} })).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { engineType: 'mapper_parsing_exception' },
    });
  });

  test('a swap a retried request already applied is done; one the engine did not apply still fails', async () => {
    // Names and the concrete indices they stand for. The client's retry of an applied swap is answered
    // index_not_found, for the index its first attempt deleted.
    const engine = (applied: boolean): EngineTransport & { names: Map<string, string[]> } => {
      const names = new Map([
        ['notes', ['notes__g1']],
        ['notes__rebuild', ['notes__rebuild__g2']],
      ]);
      return {
        product: 'OpenSearch',
        names,
        request: <T>(request: { method: string; path: string }) => {
          if (request.method === 'GET') {
            const indices = names.get(request.path.slice(1));
            if (!indices) return Promise.reject(new EngineResponseError('OpenSearch', 404, {}));
            return Promise.resolve({ status: 200, body: Object.fromEntries(indices.map((i) => [i, {}])) as T });
          }
          if (applied) {
            names.delete('notes__rebuild');
            names.set('notes', ['notes__rebuild__g2']);
          }
          return Promise.reject(
            new EngineResponseError('OpenSearch', 404, { error: { type: 'index_not_found_exception', reason: 'no such index [notes__g1]' } }),
          );
        },
        close: () => Promise.resolve(),
      };
    };
    const retried = engine(true);
    await swapShadowAlias(retried, 'notes__rebuild', 'notes');
    expect(retried.names.get('notes')).toEqual(['notes__rebuild__g2']);
    await expect(swapShadowAlias(engine(false), 'notes__rebuild', 'notes')).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { engineType: 'index_not_found_exception' },
    });
  });
});
