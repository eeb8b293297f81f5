import { mkdtempSync, readFileSync, appendFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Journal, JOURNAL_FILE, type JournalEntry } from '../../../src/embedded/registry/journal';
import { RegistryState } from '../../../src/embedded/registry/state';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'registry-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entries: JournalEntry[] = [
  { t: 'schema', id: 1, schema: '"string"' },
  { t: 'version', subject: 's', version: 1, id: 1 },
  { t: 'config', subject: 's', level: 'FULL' },
];

describe('registry journal (JSON lines)', () => {
  test('entries appended are read back in order after reopening', async () => {
    const first = await Journal.open(dir);
    expect(first.loaded).toEqual({ entries: [], dropped: 0 });
    await first.journal.append(entries);
    await first.journal.close();
    const again = await Journal.open(dir);
    expect(again.loaded).toEqual({ entries, dropped: 0 });
    await again.journal.close();
  });

  test('a torn last line (crash mid-append) is dropped and counted', async () => {
    const { journal } = await Journal.open(dir);
    await journal.append(entries);
    await journal.close();
    appendFileSync(path.join(dir, JOURNAL_FILE), '{"t":"version","subj');
    const again = await Journal.open(dir);
    expect(again.loaded.entries).toEqual(entries);
    expect(again.loaded.dropped).toBe(1);
    await again.journal.close();
  });

  test('rewrite replaces the file whole and appends go on after it', async () => {
    const { journal } = await Journal.open(dir);
    await journal.append(entries);
    await journal.rewrite(entries.slice(0, 2));
    await journal.append([{ t: 'config', subject: null, level: 'NONE' }]);
    await journal.close();
    const lines = readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l) as JournalEntry)).toEqual([...entries.slice(0, 2), { t: 'config', subject: null, level: 'NONE' }]);
  });
});

describe('registry state', () => {
  test('a snapshot rebuilds the same state, without permanently deleted versions', () => {
    const s = new RegistryState();
    const log: JournalEntry[] = [
      ...entries,
      { t: 'schema', id: 2, schema: '"int"' },
      { t: 'version', subject: 's', version: 2, id: 2 },
      { t: 'delete', subject: 's', version: 1, permanent: false },
      { t: 'delete', subject: 's', version: 1, permanent: true },
      { t: 'version', subject: 'gone', version: 1, id: 1 },
      { t: 'delete', subject: 'gone', version: 1, permanent: false },
      { t: 'config', subject: null, level: 'FORWARD' },
    ];
    log.forEach((e) => s.apply(e));
    const rebuilt = new RegistryState();
    s.snapshot().forEach((e) => rebuilt.apply(e));
    expect(rebuilt.versions('s')).toEqual([{ version: 2, id: 2, deleted: false }]);
    expect(rebuilt.versions('gone', true)).toEqual([{ version: 1, id: 1, deleted: true }]);
    expect(rebuilt.globalLevel).toBe('FORWARD');
    expect(rebuilt.subjectLevels.get('s')).toBe('FULL');
    expect(rebuilt.nextId).toBe(3);
  });
});
