import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Principal } from './api';
import { ErrorLine } from './error-line';
import { RateChart } from './rate-chart';
import { appendRates, type EntityCounts, type RateSeries } from './rates';

interface Counts {
  at: string;
  entities: EntityCounts[];
  pipelineLag: number;
  lag: { kind: 'group' | 'checkpoint'; consumer: string; topic: string; partition: number; lag: number }[];
}
interface Readiness {
  status: string;
  checks: { name: string; status: string; optional: boolean; reason?: string }[];
}
const POLL_MS = 2000;

/** The signed-in tenant's deltas accepted and refused per entity (live), and the checks behind /ready. */
export function Overview({ principal }: { principal: Principal }) {
  const [counts, setCounts] = useState<Counts | null>(null);
  const [rates, setRates] = useState<RateSeries>({});
  const previous = useRef<Counts | null>(null);
  const [ready, setReady] = useState<Readiness | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      try {
        const [now, readiness] = await Promise.all([api<Counts>('GET', '/admin/overview'), fetch('/ready').then((r) => r.json() as Promise<Readiness>)]);
        if (stopped) return;
        const before = previous.current;
        previous.current = now;
        setCounts(now);
        if (before) setRates((series) => appendRates(series, before, now));
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

  const latest = (entity: string) => rates[entity]?.at(-1);

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
            {counts?.entities.map((e) => (
              <tr key={e.entity}>
                <td>{e.entity}</td>
                <td>{e.accepted}</td>
                <td>{(latest(e.entity)?.accepted ?? 0).toFixed(1)}</td>
                <td>{e.refused}</td>
                <td>{(latest(e.entity)?.refused ?? 0).toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div class="charts">
          {counts?.entities.map((e) => (
            <RateChart key={e.entity} entity={e.entity} points={rates[e.entity] ?? []} />
          ))}
        </div>
      </section>
      <section aria-labelledby="lag-title">
        <h2 id="lag-title">Lag</h2>
        <p>Pipeline: {counts?.pipelineLag ?? '…'} deltas not decided yet (all tenants)</p>
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
            {counts?.lag.map((p) => (
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
              {c.optional ? ', reported, not required' : ''}
              {c.reason ? ` (${c.reason})` : ''}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
