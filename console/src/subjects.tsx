import { useState } from 'preact/hooks';
import { api } from './api';
import { ErrorLine } from './error-line';

interface Report {
  subject: string;
  erased: { erasedAt: string; erasedBy: string } | null;
  keyVersions: number;
  holdings: { entity: string; subjectField: string; personalFields: string[]; records: number; keys: string[] }[];
}

/** What would be lost by erasing, in words: the confirmation names it before anything is destroyed. */
function lossOf(report: Report): string {
  const held = report.holdings.map((h) => `${h.personalFields.join(', ')} of ${h.records} ${h.entity} record${h.records === 1 ? '' : 's'}`);
  return (
    `Erasing ${report.subject} destroys its ${report.keyVersions} key version${report.keyVersions === 1 ? '' : 's'}: ` +
    `${held.length > 0 ? held.join('; ') : 'no record'} become unreadable for good.`
  );
}

/** A data subject's access report (GET /subjects/:id) and its erasure (POST /subjects/:id/erase, role eraser). */
export function Subjects() {
  const [subject, setSubject] = useState('');
  const [report, setReport] = useState<Report | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const [outcome, setOutcome] = useState('');
  const [error, setError] = useState<unknown>(null);

  const show = async () => {
    try {
      setReport(await api<Report>('GET', `/subjects/${encodeURIComponent(subject)}`));
      setConfirming(false);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  const erase = async (target: Report) => {
    try {
      const erased = await api<{ destroyedKeyVersions: number; entities: string[] }>('POST', `/subjects/${encodeURIComponent(target.subject)}/erase`, {});
      setOutcome(`${target.subject} erased: ${erased.destroyedKeyVersions} key version${erased.destroyedKeyVersions === 1 ? '' : 's'} destroyed`);
      setConfirming(false);
      setTyped('');
      await show();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section aria-labelledby="subjects-title">
      <h2 id="subjects-title">Data subjects</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void show();
        }}
      >
        <label>
          Subject <input value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
        </label>
        <button type="submit">Access report</button>
      </form>
      <ErrorLine error={error} />
      {outcome && <p role="status">{outcome}</p>}
      {report && (
        <>
          <p>
            {report.subject}: {report.erased ? `erased at ${report.erased.erasedAt} by ${report.erased.erasedBy}` : 'not erased'}, {report.keyVersions} key
            versions
          </p>
          <table aria-label="holdings">
            <thead>
              <tr>
                <th>Entity</th>
                <th>Records</th>
                <th>Personal fields</th>
                <th>Keys</th>
              </tr>
            </thead>
            <tbody>
              {report.holdings.map((h) => (
                <tr key={h.entity}>
                  <td>{h.entity}</td>
                  <td>{h.records}</td>
                  <td>{h.personalFields.join(', ')}</td>
                  <td>{h.keys.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!report.erased && (
            <button type="button" onClick={() => setConfirming(true)}>
              Erase {report.subject}…
            </button>
          )}
          {confirming && (
            <form
              aria-label="confirm erasure"
              onSubmit={(e) => {
                e.preventDefault();
                void erase(report);
              }}
            >
              <p>{lossOf(report)}</p>
              <label>
                Type {report.subject} to confirm <input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
              </label>
              <button type="submit" disabled={typed !== report.subject}>
                Erase for good
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </form>
          )}
        </>
      )}
    </section>
  );
}
