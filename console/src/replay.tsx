import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface Job {
  id: string;
  kind: 'replay' | 'verify';
  entity: string;
  status: string;
  startedAt: string;
  finishedAt?: string;
  progress: { phase: string; done: number; total: number; rate: number; etaSeconds: number | null };
  result?: unknown;
  error?: { code: string; message: string };
}
const POLL_MS = 1000;
/** While a job runs its bar is read more often, so it moves smoothly. */
const RUNNING_POLL_MS = 400;

/** Rebuild or verify an entity's projections (POST /admin/replay, /admin/verify) and follow the tenant's jobs. */
export function Replay() {
  const [entity, setEntity] = useState('');
  const [jobs, setJobs] = useState<Job[]>([]);
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    try {
      setJobs((await api<{ jobs: Job[] }>('GET', '/admin/replay')).jobs);
    } catch (e) {
      setError(e);
    }
  };
  const running = jobs.find((j) => j.status === 'running');
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), running ? RUNNING_POLL_MS : POLL_MS);
    return () => clearInterval(timer);
  }, [running !== undefined]);
  const start = async (kind: 'replay' | 'verify') => {
    try {
      await api('POST', `/admin/${kind}`, { entity });
      setError(null);
      await load();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start('replay');
        }}
      >
        <label>
          Entity <input value={entity} onInput={(e) => setEntity(e.currentTarget.value)} />
        </label>
        <button type="submit">Rebuild</button>
        <button type="button" onClick={() => void start('verify')}>
          Verify
        </button>
      </form>
      <ErrorLine error={error} />
      {running && (
        <p>
          <label>
            {running.kind} of {running.entity}: {running.progress.phase} <progress max={Math.max(1, running.progress.total)} value={running.progress.done} />
          </label>{' '}
          {running.progress.done}/{running.progress.total} events, {running.progress.rate.toFixed(0)}/s, ETA{' '}
          {running.progress.etaSeconds === null ? '…' : `${running.progress.etaSeconds.toFixed(0)} s`}
        </p>
      )}
      <table aria-label="replay jobs">
        <thead>
          <tr>
            <th>Started</th>
            <th>Kind</th>
            <th>Entity</th>
            <th>Status</th>
            <th>Events</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id}>
              <td>{j.startedAt}</td>
              <td>{j.kind}</td>
              <td>{j.entity}</td>
              <td>{j.status}</td>
              <td>
                {j.progress.done}/{j.progress.total}
              </td>
              <td>
                <pre>{j.error ? `${j.error.code}: ${j.error.message}` : j.result === undefined ? '' : JSON.stringify(j.result, null, 2)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
