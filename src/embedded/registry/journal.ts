/**
 * The registry's durable store: an append-only JSON-lines file, one state change per line, fsynced before
 * the change is acknowledged. On open the file is read back; a torn last line (a crash mid-append) is
 * dropped, and the file is rewritten compactly through a temp file + fsync + rename so a crash during the
 * rewrite leaves either the old or the new file, never half of one.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export type JournalEntry =
  | { readonly t: 'schema'; readonly id: number; readonly schema: string }
  | { readonly t: 'version'; readonly subject: string; readonly version: number; readonly id: number }
  | { readonly t: 'delete'; readonly subject: string; readonly version: number; readonly permanent: boolean }
  | { readonly t: 'config'; readonly subject: string | null; readonly level: string | null };

export const JOURNAL_FILE = 'schemas.jsonl';

export interface LoadedJournal {
  readonly entries: JournalEntry[];
  /** Lines that could not be parsed (a torn tail); the caller rewrites the file when there were any. */
  readonly dropped: number;
}

export class Journal {
  private constructor(
    private readonly file: string,
    private handle: fs.FileHandle,
  ) {}

  static async open(dataDir: string): Promise<{ journal: Journal; loaded: LoadedJournal }> {
    await fs.mkdir(dataDir, { recursive: true });
    const file = path.join(dataDir, JOURNAL_FILE);
    const loaded = await readEntries(file);
    const handle = await fs.open(file, 'a');
    return { journal: new Journal(file, handle), loaded };
  }

  async append(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.handle.appendFile(entries.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    await this.handle.datasync();
  }

  /** Replaces the whole file with `entries`, atomically. */
  async rewrite(entries: readonly JournalEntry[]): Promise<void> {
    const tmp = `${this.file}.tmp-${process.pid}`;
    const out = await fs.open(tmp, 'w');
    try {
      await out.writeFile(entries.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
      await out.sync();
    } finally {
      await out.close();
    }
    await this.handle.close();
    await fs.rename(tmp, this.file);
    await syncDir(path.dirname(this.file));
    this.handle = await fs.open(this.file, 'a');
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

async function readEntries(file: string): Promise<LoadedJournal> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], dropped: 0 };
    throw e;
  }
  const entries: JournalEntry[] = [];
  let dropped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      dropped += 1;
    }
  }
  return { entries, dropped };
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}
