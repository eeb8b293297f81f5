import { useEffect, useState } from 'preact/hooks';
import { api, type Principal } from './api';
import { ErrorLine } from './error-line';

interface Counts {
  at: string;
  entities: { entity: string; accepted: number; refused: number }[];
  pipelineLag: number;
  lag: { kind: 'group' | 'checkpoint'; consumer: string; topic: string; partition: number; lag: number }[];
}
interface Readiness {
  status: string;
  checks: { name: string; status: string; reason?: string }[];
}
const POLL_MS = 2000;

/** Rate per second between two readings of a running count. */
const rate = (now: number, before: number | undefined, seconds: number) => (before === undefined || seconds <= 0 ? 0 : Math.max(0, now - before) / seconds);

/** The signed-in tenant's deltas accepted and refused per entity (live), and the checks behind /ready. */
export function Overview({ principal }: { principal: Principal }) {
  const [counts, setCounts] = useState<{ now: Counts; before?: Counts } | null>(null);
  const [ready, setReady] = useState<Readiness | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      try {
        const [now, readiness] = await Promise.all([api<Counts>('GET', '/admin/overview'), fetch('/ready').then((r) => r.json() as Promise<Readiness>)]);
        if (stopped) return;
        setCounts((previous) => ({ now, ...(previous && { before: previous.now }) }));
        setReady(readiness);
        setError(null);
      } catch (e) {
        if (!stopped) setError(e);
      }
    };
    void poll();
    const timer = setInterval(() => void poll(), POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  const seconds = counts?.before ? (Date.parse(counts.now.at) - Date.parse(counts.before.at)) / 1000 : 0;
  const before = (entity: string) => counts?.before?.entities.find((e) => e.entity === entity);

  return (
    <>
      <section aria-labelledby="deltas-title">
        <h2 id="deltas-title">Deltas of tenant {principal.tenant}</h2>
        <ErrorLine error={error} />
        <table aria-label="deltas per entity">
          <thead>
            <tr>
              <th>Entity</th>
              <th>Accepted</th>
              <th>Accepted/s</th>
              <th>Refused</th>
              <th>Refused/s</th>
            </tr>
          </thead>
          <tbody>
            {counts?.now.entities.map((e) => (
              <tr key={e.entity}>
                <td>{e.entity}</td>
                <td>{e.accepted}</td>
                <td>{rate(e.accepted, before(e.entity)?.accepted, seconds).toFixed(1)}</td>
                <td>{e.refused}</td>
                <td>{rate(e.refused, before(e.entity)?.refused, seconds).toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="lag-title">
        <h2 id="lag-title">Lag</h2>
        <p>Pipeline: {counts?.now.pipelineLag ?? '…'} deltas not decided yet (all tenants)</p>
        <table aria-label="lag per partition">
          <thead>
            <tr>
              <th>Consumer</th>
              <th>Position</th>
              <th>Topic</th>
              <th>Partition</th>
              <th>Lag (records)</th>
            </tr>
          </thead>
          <tbody>
            {counts?.now.lag.map((p) => (
              <tr key={`${p.kind}/${p.consumer}/${p.topic}/${p.partition}`}>
                <td>{p.consumer}</td>
                <td>{p.kind === 'group' ? 'committed offset' : 'checkpoint'}</td>
                <td>{p.topic}</td>
                <td>{p.partition}</td>
                <td>{p.lag}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="ready-title">
        <h2 id="ready-title">Readiness: {ready?.status ?? '…'}</h2>
        <ul>
          {ready?.checks.map((c) => (
            <li key={c.name} class={c.status}>
              {c.name}: {c.status}
              {c.reason ? ` (${c.reason})` : ''}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
