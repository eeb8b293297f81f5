import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface FieldSpec {
  type: string;
  required: boolean;
  sensitive: false | { methods: string[] };
  personal?: true;
}
interface Config {
  entity: string;
  version: number;
  key: string[];
  fields: Record<string, FieldSpec>;
  persistence: { topic: string; table: string; index: string };
  roles: Record<string, { operations: string[]; write: string[]; read: string[]; writeDenied: string }>;
}
interface Listing {
  configs: Config[];
  refused: { entity: string; code: string; message: string }[];
}

/** The tenant's entity configurations (GET /admin/entities): fields, key, sensitive and personal fields, roles. */
export function EntityConfigs() {
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<Listing>('GET', '/admin/entities').then(setListing, setError);
  }, []);

  return (
    <section aria-labelledby="configs-title">
      <h2 id="configs-title">Entity configurations</h2>
      <ErrorLine error={error} />
      {listing?.configs.map((c) => (
        <details key={c.entity}>
          <summary>
            {c.entity} (version {c.version}, key {c.key.join(', ')}, topic {c.persistence.topic})
          </summary>
          <table aria-label={`fields of ${c.entity}`}>
            <thead>
              <tr>
                <th>Field</th>
                <th>Type</th>
                <th>Required</th>
                <th>Sensitive</th>
                <th>Personal</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(c.fields).map(([name, f]) => (
                <tr key={name}>
                  <td>{name}</td>
                  <td>{f.type}</td>
                  <td>{f.required ? 'yes' : 'no'}</td>
                  <td>{f.sensitive === false ? 'no' : f.sensitive.methods.join(', ')}</td>
                  <td>{f.personal ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table aria-label={`roles of ${c.entity}`}>
            <thead>
              <tr>
                <th>Role</th>
                <th>Operations</th>
                <th>May write</th>
                <th>May read</th>
                <th>A field it may not write is</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(c.roles).map(([role, r]) => (
                <tr key={role}>
                  <td>{role}</td>
                  <td>{r.operations.join(', ')}</td>
                  <td>{r.write.join(', ')}</td>
                  <td>{r.read.join(', ')}</td>
                  <td>{r.writeDenied}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ))}
      {listing?.refused.map((r) => (
        <p key={r.entity} class="error">
          {r.entity} is refused: {r.code}: {r.message}
        </p>
      ))}
    </section>
  );
}
