/**
 * Compiles a whole `SearchRequest` into ONE parameterised statement returning one JSON row: the page of hits,
 * the total (exact or capped, per `track_total_hits`), the best score and the terms aggregations, all over
 * the same `matched` rows.
 */
import type { SearchRequest, SortKey, TermsAggregation } from '../dsl/ast';
import { compileQuery } from './compile-query';
import { valueOf } from './field-sql';
import { SqlParams } from './sql-params';

export interface CompiledSearch {
  text: string;
  values: unknown[];
}

/** One row of the statement's result, as Postgres renders it with `json_build_object`. */
export interface SearchRow {
  total: number | null;
  max_score: number | null;
  hits: { id: string; source: Record<string, unknown>; score: number }[];
  aggs: Record<string, { buckets: { key: unknown; doc_count: number }[]; other: number }> | null;
}

function orderBy(sort: SortKey[] | undefined): string {
  const keys = (sort ?? [{ kind: 'score', order: 'desc' }]).map((key) =>
    key.kind === 'score' ? `score ${key.order}` : `${valueOf(key.field)} ${key.order} nulls ${key.missing}`,
  );
  // Elasticsearch breaks ties by its internal document order; we break them by id, so pages are stable.
  return [...keys, 'id asc'].join(', ');
}

function total(trackTotalHits: boolean | number, params: SqlParams): string {
  if (trackTotalHits === false) return 'null';
  if (trackTotalHits === true) return '(select count(*) from matched)';
  return `(select count(*) from (select 1 from matched limit ${params.add(trackTotalHits + 1, 'bigint')}) counted)`;
}

function aggregation(agg: TermsAggregation, params: SqlParams): string {
  const key = valueOf(agg.field);
  return (
    `${params.add(agg.name, 'text')}, (select json_build_object(` +
    `'buckets', coalesce(json_agg(json_build_object('key', b.key, 'doc_count', b.doc_count) order by b.doc_count desc, b.key asc), '[]'::json), ` +
    `'other', (select count(*) from matched where ${key} is not null) - coalesce(sum(b.doc_count), 0)) ` +
    `from (select ${key} as key, count(*) as doc_count from matched where ${key} is not null ` +
    `group by 1 order by 2 desc, 1 asc limit ${params.add(agg.size, 'bigint')}) b)`
  );
}

/** `allWords`: the index's `allWordsExpression`, which its full-text clauses test first. */
export function compileSearch(table: string, request: SearchRequest, allWords: string): CompiledSearch {
  const params = new SqlParams();
  const query = compileQuery(request.query, params, allWords);
  const order = orderBy(request.sort);
  const aggs = request.aggregations.length === 0 ? 'null' : `json_build_object(${request.aggregations.map((a) => aggregation(a, params)).join(', ')})`;
  // Without a total or aggregations nothing needs every hit: `matched` is read once, so Postgres can stop at
  // the page (a top-N sort or an index scan), and max_score is the page's best, the first hit's when by score.
  const pageOnly = request.trackTotalHits === false && request.aggregations.length === 0;
  const text =
    `with matched as ${pageOnly ? '' : 'materialized '}(select id, source, (${query.score})::float8 as score from ${table} where ${query.where}), ` +
    `page as materialized (select id, source, score from matched order by ${order} ` +
    `limit ${params.add(request.size, 'bigint')} offset ${params.add(request.from, 'bigint')}) ` +
    `select json_build_object(` +
    `'total', ${total(request.trackTotalHits, params)}, ` +
    `'max_score', (select max(score) from ${pageOnly ? 'page' : 'matched'}), ` +
    `'hits', (select coalesce(json_agg(json_build_object('id', p.id, 'source', p.source, 'score', p.score) order by ${order}), '[]'::json) from page p), ` +
    `'aggs', ${aggs}) as result`;
  return { text, values: params.values };
}
