import { useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface Message {
  partition: number;
  offset: string;
  key: string | null;
  timestamp: string;
  schemaId: number;
  value: unknown;
}
interface Messages {
  messages: Message[];
  schemas: Record<string, { name?: string }>;
}

/**
 * A persistence topic's latest messages decoded from Avro (GET /admin/topics/:topic/messages), each value and
 * writer schema shown as JSON text; sensitive fields are the ciphertext the log holds.
 */
export function TopicMessages({ topic }: { topic: string }) {
  const [limit, setLimit] = useState('20');
  const [answer, setAnswer] = useState<Messages | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      setAnswer(await api<Messages>('GET', `/admin/topics/${encodeURIComponent(topic)}/messages?limit=${encodeURIComponent(limit)}`));
      setError(null);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <h3>Messages</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label>
          Latest messages <input type="number" min={1} max={100} value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
        </label>
        <button type="submit">Read messages</button>
      </form>
      <ErrorLine error={error} />
      {answer && (
        <>
          <table aria-label={`messages of ${topic}`}>
            <thead>
              <tr>
                <th>Partition</th>
                <th>Offset</th>
                <th>Key</th>
                <th>Time</th>
                <th>Schema</th>
                <th>Value</th>
              </tr>
            </thead>
            <tbody>
              {answer.messages.map((m) => (
                <tr key={`${m.partition}/${m.offset}`}>
                  <td>{m.partition}</td>
                  <td>{m.offset}</td>
                  <td>{m.key ?? '-'}</td>
                  <td>{m.timestamp}</td>
                  <td>
                    {answer.schemas[m.schemaId]?.name ?? '?'} (id {m.schemaId})
                  </td>
                  <td>
                    <pre>{JSON.stringify(m.value, null, 2)}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {Object.entries(answer.schemas).map(([id, schema]) => (
            <details key={id}>
              <summary>
                Writer schema {schema.name ?? '?'} (id {id})
              </summary>
              <pre>{JSON.stringify(schema, null, 2)}</pre>
            </details>
          ))}
        </>
      )}
    </>
  );
}
