import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface Key {
  name: string;
  family: string;
  latestVersion: number;
  minDecryptionVersion: number;
  versions: { version: number; encryptions: number; createdAt: string }[];
}

/** The tenant's keys, their versions and how many encryptions each made (GET /keys); rotate one (POST /keys/rotate). */
export function Keys() {
  const [keys, setKeys] = useState<Key[]>([]);
  const [outcome, setOutcome] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    try {
      setKeys((await api<{ keys: Key[] }>('GET', '/keys')).keys);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void load(), []);
  const rotate = async (key: Key) => {
    try {
      const { version } = await api<{ version: number }>('POST', '/keys/rotate', { method: key.family, key: key.name });
      setOutcome(`${key.name} (${key.family}) rotated to version ${version}`);
      setError(null);
      await load();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      <ErrorLine error={error} />
      {outcome && <p role="status">{outcome}</p>}
      <table aria-label="keys">
        <thead>
          <tr>
            <th>Key</th>
            <th>Method</th>
            <th>Latest version</th>
            <th>Oldest decryptable</th>
            <th>Encryptions per version</th>
            <th>Rotate</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={`${k.name}/${k.family}`}>
              <td>{k.name}</td>
              <td>{k.family}</td>
              <td>{k.latestVersion}</td>
              <td>{k.minDecryptionVersion}</td>
              <td>{k.versions.map((v) => `v${v.version}: ${v.encryptions}`).join(', ')}</td>
              <td>
                <button type="button" onClick={() => void rotate(k)}>
                  Rotate {k.name} ({k.family})
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
