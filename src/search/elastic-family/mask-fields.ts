/**
 * A data subject's erasure on an Elasticsearch-family index, without scripts (Elasticsearch from Maven Central
 * has no painless, see src/stack/elasticsearch.ts). The subject's documents are read with their versions,
 * masked here, and written back with the same version (`external_gte`), so:
 *  - the subject is matched on the whole value (the `keyword` sub-field of a string), not on analysed words;
 *  - a repeated erasure changes nothing and counts nothing (documents already masked are skipped), and never
 *    raises a version, so the record's next event still applies;
 *  - a newer event written between the read and the write wins the version check (409): that document is read
 *    again and masked again;
 *  - any other refused write fails the erasure, so it is retried rather than reported done.
 */
import { DeltabrokerError } from '../../errors';
import { inBatches, sendBulk, type RefreshPolicy } from './bulk-writes';
import { engineCall } from './engine-errors';
import { pathOf, type EngineTransport } from './engine-transport';
import { forEachPage, SCROLL_PAGE, type VersionedHit as Hit } from './scroll-pages';
import type { IndexDefinition } from '../search-port';

export interface MaskRequest {
  match: { field: string; value: string };
  fields: readonly string[];
  marker: string;
}

/** A document rewritten by newer events this many times in a row during one erasure is left to the next attempt. */
const MAX_ROUNDS = 5;
const AT = { stage: 'search-index', field: 'match' };

function subjectQuery(definition: IndexDefinition, match: MaskRequest['match']): unknown {
  const field = definition.fields.find((f) => f.name === match.field);
  if (field === undefined || field.type === 'object') {
    throw new DeltabrokerError('DB_VALIDATION', `the subject field ${JSON.stringify(match.field)} is not a queryable field of ${definition.name}`, {
      stage: 'search-index',
      field: 'match.field',
      rule: 'unknown-field',
    });
  }
  return { term: { [field.type === 'string' ? `${field.name}.keyword` : field.name]: match.value } };
}

function masked(source: Record<string, unknown>, request: MaskRequest): Record<string, unknown> | undefined {
  const out = { ...source };
  let changed = false;
  for (const f of request.fields) {
    if (typeof out[f] === 'string' && out[f] !== request.marker) {
      out[f] = request.marker;
      changed = true;
    }
  }
  return changed ? out : undefined;
}

async function readByIds(transport: EngineTransport, target: string, ids: readonly string[]): Promise<Hit[]> {
  const answer = await engineCall(
    () =>
      transport.request<{ hits: { hits: Hit[] } }>({
        method: 'POST',
        path: `${pathOf(target)}/_search`,
        body: { query: { ids: { values: ids } }, size: ids.length, version: true },
      }),
    AT,
  );
  return answer.body.hits.hits;
}

export async function maskSubject(
  transport: EngineTransport,
  target: string,
  definition: IndexDefinition,
  request: MaskRequest,
  refresh: RefreshPolicy,
): Promise<number> {
  const query = subjectQuery(definition, request.match);
  const changedIds = new Set<string>();
  let hits: Hit[] = [];
  await forEachPage(transport, target, query, AT, (page) => {
    hits.push(...page);
    return Promise.resolve();
  });
  for (let round = 0; hits.length > 0; round++) {
    if (round === MAX_ROUNDS) {
      throw new DeltabrokerError('DB_CONFLICT', `erasure in ${definition.name}: documents kept changing under it; retry`, {
        stage: 'search-index',
        field: 'match',
      });
    }
    const writes = hits.flatMap((hit) => {
      const source = masked(hit._source, request);
      return source === undefined ? [] : [{ hit, source }];
    });
    const operations = inBatches(writes, SCROLL_PAGE).map((batch) =>
      batch.flatMap(({ hit, source }) => [{ index: { _index: target, _id: hit._id, version: hit._version, version_type: 'external_gte' } }, source]),
    );
    const conflicted = await sendBulk(transport, operations, 409, refresh);
    for (const { hit } of writes) if (!conflicted.includes(hit._id)) changedIds.add(hit._id);
    // A document a newer event replaced since the read: still the subject's? Mask its new version.
    hits = conflicted.length === 0 ? [] : await readByIds(transport, target, conflicted);
    hits = hits.filter((hit) => hit._source[request.match.field] === request.match.value);
  }
  return changedIds.size;
}
