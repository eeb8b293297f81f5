import { useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';
import { RecordHistory } from './history';

interface Page {
  items: Record<string, unknown>[];
  count: number;
}
interface SearchAnswer {
  hits: { total: { value: number } | number; hits: { _source: Record<string, unknown> }[] };
}
const PAGE = 20;

/** An entity's rows through the storage broker's `read` (POST /, an RQL string), a page at a time. */
export function Rows() {
  const [entity, setEntity] = useState('');
  const [rql, setRql] = useState('');
  const [dsl, setDsl] = useState('{"query":{"match_all":{}}}');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<(Page & { from: 'read' | 'search' }) | null>(null);
  const [error, setError] = useState<unknown>(null);

  const read = async (from: number) => {
    const paged = [rql.trim(), `limit(${PAGE},${from})`].filter((part) => part !== '').join('&');
    try {
      setPage({ ...(await api<Page>('POST', '/', { dispatch: { entity, operation: 'read' }, payload: paged })), from: 'read' });
      setOffset(from);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  // The DSL goes to the entity's search index as typed (the service guards hidden fields); hits shown like rows.
  const search = async () => {
    try {
      const body = JSON.parse(dsl) as unknown;
      const { hits } = await api<SearchAnswer>('POST', '/', { dispatch: { entity, operation: 'search' }, payload: body });
      setPage({ items: hits.hits.map((h) => h._source), count: typeof hits.total === 'number' ? hits.total : hits.total.value, from: 'search' });
      setOffset(0);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  const columns = [...new Set(page?.items.flatMap((row) => Object.keys(row)) ?? [])];

  return (
    <section aria-labelledby="rows-title">
      <h2 id="rows-title">Entity rows</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void read(0);
        }}
      >
        <label>
          Entity <input value={entity} onInput={(e) => setEntity(e.currentTarget.value)} />
        </label>
        <label>
          RQL <input size={60} value={rql} placeholder="eq(country,DE)&sort(-name)" onInput={(e) => setRql(e.currentTarget.value)} />
        </label>
        <button type="submit">Read</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <label>
          Search DSL <input size={60} value={dsl} onInput={(e) => setDsl(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      <RecordHistory entity={entity} />
      <ErrorLine error={error} />
      {page && (
        <>
          <p role="status">
            {page.from === 'search' ? 'hits' : 'rows'} {page.items.length === 0 ? 0 : offset + 1}–{offset + page.items.length} of {page.count}
          </p>
          <table aria-label="rows">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.items.map((row, i) => (
                <tr key={i}>
                  {columns.map((c) => (
                    <td key={c}>{typeof row[c] === 'object' ? JSON.stringify(row[c]) : String(row[c] ?? '')}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" disabled={offset === 0} onClick={() => void read(Math.max(0, offset - PAGE))}>
            Previous page
          </button>
          <button type="button" disabled={offset + page.items.length >= page.count} onClick={() => void read(offset + PAGE)}>
            Next page
          </button>
        </>
      )}
    </section>
  );
}
