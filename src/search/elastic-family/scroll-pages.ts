/**
 * Reads every hit of a query page by page with a scroll, each page with its documents' versions. Every request
 * is short, so a long read never meets the client's timeout; the scroll is released at the end.
 */
import { engineCall, type FailureContext } from './engine-errors';
import { pathOf, type EngineTransport } from './engine-transport';

export interface VersionedHit {
  _id: string;
  _version: number;
  _source: Record<string, unknown>;
}

interface ScrollPage {
  _scroll_id?: string;
  hits: { hits: VersionedHit[] };
}

export const SCROLL_PAGE = 500;
const KEEP_ALIVE = '2m';

export async function forEachPage(
  transport: EngineTransport,
  index: string,
  query: unknown,
  context: FailureContext,
  handle: (hits: VersionedHit[]) => Promise<void>,
): Promise<void> {
  let page = await engineCall(
    () =>
      transport.request<ScrollPage>({
        method: 'POST',
        path: `${pathOf(index)}/_search`,
        query: { scroll: KEEP_ALIVE },
        body: { query, size: SCROLL_PAGE, version: true, sort: ['_doc'] },
      }),
    context,
  );
  try {
    while (page.body.hits.hits.length > 0) {
      await handle(page.body.hits.hits);
      const scrollId = page.body._scroll_id;
      page = await engineCall(
        () => transport.request<ScrollPage>({ method: 'POST', path: '/_search/scroll', body: { scroll: KEEP_ALIVE, scroll_id: scrollId } }),
        context,
      );
    }
  } finally {
    const scrollId = page.body._scroll_id;
    if (scrollId !== undefined) await transport.request({ method: 'DELETE', path: '/_search/scroll', body: { scroll_id: scrollId } }).catch(() => undefined);
  }
}
