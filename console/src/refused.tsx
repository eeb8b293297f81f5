import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface RefusedDelta {
  rejectionId: string;
  deltaId: string | null;
  entity: string | null;
  key: string | null;
  stage: string;
  code: string;
  field: string | null;
  rule: string | null;
  message: string;
  rejectedAt: string;
  retries: { state: string; attempts: number };
}
interface RetryAnswer {
  sent: unknown[];
  verdicts: Record<string, { status: string; code?: string }>;
}

/**
 * Refused deltas of the signed-in tenant (GET /admin/rejections, the CLI's `rejections list`), one shown as
 * `rejections show` gives it, and retried one or many through POST /admin/rejections/retry.
 */
export function Refused() {
  const [filter, setFilter] = useState({ stage: '', code: '', since: '1h' });
  const [items, setItems] = useState<RefusedDelta[]>([]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [shown, setShown] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<string>('');
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== ''));
    try {
      setItems((await api<{ items: RefusedDelta[] }>('GET', `/admin/rejections?${query}`)).items);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void load(), []);

  const show = async (deltaId: string) => {
    try {
      setShown(await api('GET', `/admin/rejections/${encodeURIComponent(deltaId)}`));
    } catch (e) {
      setError(e);
    }
  };
  const retry = async () => {
    try {
      const answer = await api<RetryAnswer>('POST', '/admin/rejections/retry', { deltaIds: [...chosen] });
      const verdicts = Object.values(answer.verdicts).map((v) => v.status + (v.code ? ` (${v.code})` : ''));
      setOutcome(`${answer.sent.length} sent: ${verdicts.join(', ') || 'no verdict yet'}`);
      setChosen(new Set());
      await load();
    } catch (e) {
      setError(e);
    }
  };
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (!next.delete(id)) next.add(id);
    setChosen(next);
  };
  const field = (name: keyof typeof filter, label: string) => (
    <label>
      {label} <input value={filter[name]} onInput={(e) => setFilter({ ...filter, [name]: e.currentTarget.value })} />
    </label>
  );

  return (
    <section aria-labelledby="refused-title">
      <h2 id="refused-title">Refused deltas</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        {field('stage', 'Stage')}
        {field('code', 'Code')}
        {field('since', 'Since')}
        <button type="submit">Filter</button>
        <button type="button" disabled={chosen.size === 0} onClick={() => void retry()}>
          Retry selected ({chosen.size})
        </button>
      </form>
      <ErrorLine error={error} />
      {outcome && <p role="status">{outcome}</p>}
      <table aria-label="refused deltas">
        <thead>
          <tr>
            <th>Select</th>
            <th>When</th>
            <th>Entity</th>
            <th>Key</th>
            <th>Stage</th>
            <th>Code</th>
            <th>Field</th>
            <th>Rule</th>
            <th>Retries</th>
            <th>Delta</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.rejectionId}>
              <td>
                {r.deltaId && (
                  <input type="checkbox" aria-label={`select ${r.deltaId}`} checked={chosen.has(r.deltaId)} onChange={() => toggle(r.deltaId ?? '')} />
                )}
              </td>
              <td>{r.rejectedAt}</td>
              <td>{r.entity}</td>
              <td>{r.key}</td>
              <td>{r.stage}</td>
              <td>{r.code}</td>
              <td>{r.field}</td>
              <td>{r.rule}</td>
              <td>
                {r.retries.state} ({r.retries.attempts})
              </td>
              <td>
                {r.deltaId && (
                  <button type="button" onClick={() => void show(r.deltaId ?? '')}>
                    Show {r.deltaId}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown !== null && (
        <>
          <h3>Refused delta</h3>
          <pre aria-label="refused delta">{JSON.stringify(shown, null, 2)}</pre>
        </>
      )}
    </section>
  );
}
