import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';
import { TopicMessages } from './topic-messages';

interface Offsets {
  partition: number;
  low: string;
  high: string;
}
interface TopicSummary {
  topic: string;
  partitions: number;
  endOffset: string;
  records: string;
  endOffsets: Offsets[];
}
interface TopicDescription {
  topic: string;
  partitions: Offsets[];
  groups: { group: string; partition: number; committed: string | null; high: string; lag: number }[];
}

/**
 * The topics the caller sees (GET /admin/topics: a tenant admin its persistence topics), one described with the lag
 * of each group that reads it per partition (GET /admin/topics/:topic), and its latest messages decoded.
 */
export function Topics({ messages }: { messages: boolean }) {
  const [topics, setTopics] = useState<TopicSummary[] | null>(null);
  const [shown, setShown] = useState<TopicDescription | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    try {
      setTopics((await api<{ topics: TopicSummary[] }>('GET', '/admin/topics')).topics);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  const describe = async (topic: string) => {
    try {
      setShown(await api<TopicDescription>('GET', `/admin/topics/${encodeURIComponent(topic)}`));
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void load(), []);

  return (
    <>
      <section aria-labelledby="topics-title">
        <h2 id="topics-title">Topics</h2>
        <button type="button" onClick={() => void load()}>
          Refresh topics
        </button>
        <ErrorLine error={error} />
        <table aria-label="topics">
          <thead>
            <tr>
              <th>Topic</th>
              <th>Partitions</th>
              <th>End offset</th>
              <th>Records</th>
              <th>End offsets by partition</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {topics?.map((t) => (
              <tr key={t.topic}>
                <td>{t.topic}</td>
                <td>{t.partitions}</td>
                <td>{t.endOffset}</td>
                <td>{t.records}</td>
                <td>{t.endOffsets.map((p) => `${p.partition}:${p.high}`).join(' ')}</td>
                <td>
                  <button type="button" onClick={() => void describe(t.topic)}>
                    Describe {t.topic}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {shown && (
        <section aria-labelledby="topic-title">
          <h2 id="topic-title">Topic {shown.topic}</h2>
          <table aria-label={`partitions of ${shown.topic}`}>
            <thead>
              <tr>
                <th>Partition</th>
                <th>Low</th>
                <th>High</th>
              </tr>
            </thead>
            <tbody>
              {shown.partitions.map((p) => (
                <tr key={p.partition}>
                  <td>{p.partition}</td>
                  <td>{p.low}</td>
                  <td>{p.high}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table aria-label={`consumer groups of ${shown.topic}`}>
            <thead>
              <tr>
                <th>Group</th>
                <th>Partition</th>
                <th>Committed</th>
                <th>High</th>
                <th>Lag</th>
              </tr>
            </thead>
            <tbody>
              {shown.groups.map((g) => (
                <tr key={`${g.group}/${g.partition}`}>
                  <td>{g.group}</td>
                  <td>{g.partition}</td>
                  <td>{g.committed ?? '-'}</td>
                  <td>{g.high}</td>
                  <td>{g.lag}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {messages && <TopicMessages key={shown.topic} topic={shown.topic} />}
        </section>
      )}
    </>
  );
}
