/**
 * The registry's in-memory state, changed only by applying journal entries, so that the file and the
 * memory can never disagree: a change is journaled first, then applied.
 */
import type { JournalEntry } from './journal';

export interface SubjectVersion {
  readonly version: number;
  readonly id: number;
  deleted: boolean;
}

export class RegistryState {
  readonly schemas = new Map<number, string>();
  readonly idByCanonical = new Map<string, number>();
  readonly subjects = new Map<string, SubjectVersion[]>();
  readonly subjectLevels = new Map<string, string>();
  globalLevel = 'BACKWARD';
  private maxId = 0;

  get nextId(): number {
    return this.maxId + 1;
  }

  apply(entry: JournalEntry): void {
    switch (entry.t) {
      case 'schema':
        this.schemas.set(entry.id, entry.schema);
        this.idByCanonical.set(entry.schema, entry.id);
        this.maxId = Math.max(this.maxId, entry.id);
        return;
      case 'version': {
        const versions = this.subjects.get(entry.subject) ?? [];
        versions.push({ version: entry.version, id: entry.id, deleted: false });
        this.subjects.set(entry.subject, versions);
        return;
      }
      case 'delete': {
        const versions = this.subjects.get(entry.subject) ?? [];
        if (entry.permanent) {
          const left = versions.filter((v) => v.version !== entry.version);
          if (left.length === 0) this.subjects.delete(entry.subject);
          else this.subjects.set(entry.subject, left);
        } else {
          const found = versions.find((v) => v.version === entry.version);
          if (found) found.deleted = true;
        }
        return;
      }
      case 'config':
        if (entry.subject === null) this.globalLevel = entry.level ?? 'BACKWARD';
        else if (entry.level === null) this.subjectLevels.delete(entry.subject);
        else this.subjectLevels.set(entry.subject, entry.level);
        return;
    }
  }

  /** Versions of a subject, oldest first; soft-deleted ones only when asked. */
  versions(subject: string, includeDeleted = false): SubjectVersion[] {
    const all = this.subjects.get(subject) ?? [];
    return includeDeleted ? [...all] : all.filter((v) => !v.deleted);
  }

  /** The shortest journal that rebuilds this state (used to compact the file). */
  snapshot(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (const [id, schema] of [...this.schemas].sort((a, b) => a[0] - b[0])) out.push({ t: 'schema', id, schema });
    for (const [subject, versions] of this.subjects) {
      for (const v of versions) {
        out.push({ t: 'version', subject, version: v.version, id: v.id });
        if (v.deleted) out.push({ t: 'delete', subject, version: v.version, permanent: false });
      }
    }
    if (this.globalLevel !== 'BACKWARD') out.push({ t: 'config', subject: null, level: this.globalLevel });
    for (const [subject, level] of this.subjectLevels) out.push({ t: 'config', subject, level });
    return out;
  }
}
