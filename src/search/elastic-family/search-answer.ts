/** An engine's `_search` answer read into the port's response shape: the entity's index name, hidden fields dropped. */
import { DeltabrokerError } from '../../errors';
import type { SourceFilter } from '../dsl/ast';
import type { IndexDefinition, SearchResponse, TermsAggregationResult } from '../search-port';
import { sourceProjector } from '../source-filter';
import type { EngineProduct } from './engine-transport';

export interface EngineSearchAnswer {
  took: number;
  timed_out: boolean;
  _shards?: { total: number; successful: number; failed: number; failures?: { reason?: { type?: string; reason?: string } }[] };
  hits: {
    total?: number | { value: number; relation: 'eq' | 'gte' };
    max_score?: number | null;
    hits: { _id?: string; _score?: number | null; _source?: Record<string, unknown> }[];
  };
  aggregations?: Record<string, unknown>;
}

export function readSearchAnswer(
  answer: EngineSearchAnswer,
  definition: IndexDefinition,
  sourceFilter: SourceFilter,
  readable: ReadonlySet<string> | undefined,
  product: EngineProduct,
): SearchResponse {
  if (answer.timed_out) throw new DeltabrokerError('DB_TIMEOUT', 'the search timed out', { stage: 'search' });
  // Shards that failed leave their documents out of an answer the engine still calls a success.
  const shards = answer._shards;
  if (shards !== undefined && shards.failed > 0) {
    const reason = shards.failures?.[0]?.reason;
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `${product} answered from ${shards.successful} of ${shards.total} shards: ${reason?.type ?? 'unknown'}: ${reason?.reason ?? ''}`,
      { stage: 'search', engineType: reason?.type ?? 'unknown' },
    );
  }
  const project = sourceProjector(sourceFilter, readable);
  const total = answer.hits.total;
  const result: SearchResponse = {
    took: answer.took,
    timed_out: false,
    hits: {
      ...(total === undefined
        ? {}
        : { total: typeof total === 'number' ? { value: total, relation: 'eq' } : { value: total.value, relation: total.relation } }),
      max_score: answer.hits.max_score ?? null,
      hits: answer.hits.hits.map((hit) => {
        const source = project(hit._source ?? {});
        return { _index: definition.name, _id: hit._id ?? '', _score: hit._score ?? null, ...(source === undefined ? {} : { _source: source }) };
      }),
    },
  };
  if (answer.aggregations !== undefined) result.aggregations = answer.aggregations as Record<string, TermsAggregationResult>;
  return result;
}
