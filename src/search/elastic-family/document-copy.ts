/**
 * Copies an index's documents into another through the client: scroll pages written back with `_bulk`, each
 * document with its version (`external_gte`: a document the target holds at a newer version is left as it is),
 * so later writes stay version-fenced. Not `_reindex`: Elasticsearch from Maven Central has no reindex module,
 * and a server-side copy outlives the request that waits for it (a client timeout, then a retried shadow build
 * deleting the index the copy still writes into). Every request here is short. With `requireAlias` the writes
 * go through an alias and fail once it is gone, instead of creating a stray index of its name.
 */
import { inBatches, sendBulk } from './bulk-writes';
import { engineCall } from './engine-errors';
import { pathOf, type EngineTransport } from './engine-transport';
import { forEachPage, SCROLL_PAGE } from './scroll-pages';

const AT = { stage: 'search-index', field: 'index' };

export async function copyDocuments(transport: EngineTransport, from: string, to: string, requireAlias = false): Promise<number> {
  let copied = 0;
  await forEachPage(transport, from, { match_all: {} }, AT, async (hits) => {
    const operations = inBatches(hits, SCROLL_PAGE).map((batch) =>
      batch.flatMap((hit) => [
        { index: { _index: to, _id: hit._id, version: hit._version, version_type: 'external_gte', ...(requireAlias ? { require_alias: true } : {}) } },
        hit._source,
      ]),
    );
    await sendBulk(transport, operations, 409, false);
    copied += hits.length;
  });
  await engineCall(() => transport.request({ method: 'POST', path: `${pathOf(to)}/_refresh` }), AT);
  return copied;
}
