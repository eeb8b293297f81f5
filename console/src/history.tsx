import { useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface HistoryEvent {
  version: number;
  operation: string;
  deltaId: string;
  actor: { user: string; roles: string[] };
  origin: { datacenter: string };
  occurredAt: string;
  recordedAt: string;
  position: { partition: number; offset: string };
}

/** A record's events from its entity's persistence topic (GET /admin/entities/:entity/records/:key/history). */
export function RecordHistory({ entity }: { entity: string }) {
  const [key, setKey] = useState('');
  const [events, setEvents] = useState<HistoryEvent[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      const answer = await api<{ events: HistoryEvent[] }>('GET', `/admin/entities/${encodeURIComponent(entity)}/records/${encodeURIComponent(key)}/history`);
      setEvents(answer.events);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label>
          Record key <input value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
        <button type="submit">History</button>
      </form>
      <ErrorLine error={error} />
      {events && (
        <table aria-label="record history">
          <thead>
            <tr>
              <th>Version</th>
              <th>Operation</th>
              <th>Actor</th>
              <th>Origin</th>
              <th>Occurred</th>
              <th>Recorded</th>
              <th>Delta</th>
              <th>Partition/offset</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.version}>
                <td>{e.version}</td>
                <td>{e.operation}</td>
                <td>
                  {e.actor.user} ({e.actor.roles.join(', ')})
                </td>
                <td>{e.origin.datacenter}</td>
                <td>{e.occurredAt}</td>
                <td>{e.recordedAt}</td>
                <td>{e.deltaId}</td>
                <td>
                  {e.position.partition}/{e.position.offset}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
