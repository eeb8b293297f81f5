/**
 * What the registry does, apart from HTTP: register, look up, delete, configure and check compatibility.
 * Every change goes through one queue, is journaled (fsync) and only then applied to memory, so ids and
 * versions are never handed out twice and an acknowledged registration survives a crash.
 */
import type avro from 'avsc';
import { parseAvroSchema, typeOf } from './avro-schema';
import { compatibilityProblems, incompatibleMessage, parseCompatibilityLevel, type CompatibilityLevel, type CompatibilityProblem } from './compatibility';
import { registryErrors } from './errors';
import type { Journal, JournalEntry } from './journal';
import { RegistryState, type SubjectVersion } from './state';

export interface SchemaInput {
  readonly schema: unknown;
  readonly schemaType?: unknown;
  readonly references?: unknown;
}

export interface SubjectSchema {
  readonly subject: string;
  readonly version: number;
  readonly id: number;
  readonly schema: string;
}

/** A version path segment: a number, or `latest` / -1. */
export type VersionRef = number | 'latest';

const MAX_VERSION = 2 ** 31 - 1;

export function parseVersionRef(text: string): VersionRef {
  if (text === 'latest' || text === '-1') return 'latest';
  if (!/^\d+$/.test(text)) throw registryErrors.invalidVersion(text);
  const n = Number(text);
  if (n < 1 || n > MAX_VERSION) throw registryErrors.invalidVersion(text);
  return n;
}

export class RegistryService {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly types = new Map<number, avro.Type>();

  constructor(
    private readonly state: RegistryState,
    private readonly journal: Journal,
  ) {}

  static restore(journal: Journal, entries: readonly JournalEntry[]): RegistryService {
    const state = new RegistryState();
    for (const e of entries) state.apply(e);
    return new RegistryService(state, journal);
  }

  snapshot(): JournalEntry[] {
    return this.state.snapshot();
  }

  // ---- reads ---------------------------------------------------------------------------------------

  subjects(includeDeleted: boolean): string[] {
    return [...this.state.subjects.keys()].filter((s) => this.state.versions(s, includeDeleted).length > 0).sort();
  }

  versionNumbers(subject: string, includeDeleted: boolean): number[] {
    const versions = this.state.versions(subject, includeDeleted);
    if (versions.length === 0) throw registryErrors.subjectNotFound(subject);
    return versions.map((v) => v.version);
  }

  version(subject: string, ref: VersionRef, includeDeleted = false): SubjectSchema {
    const versions = this.state.versions(subject, includeDeleted);
    if (versions.length === 0) throw registryErrors.subjectNotFound(subject);
    const found = ref === 'latest' ? versions.at(-1) : versions.find((v) => v.version === ref);
    if (!found) throw registryErrors.versionNotFound(ref);
    return this.describe(subject, found);
  }

  schemaById(id: number): string {
    const schema = this.state.schemas.get(id);
    if (schema === undefined) throw registryErrors.schemaNotFound(id);
    return schema;
  }

  /** Every live (subject, version) that uses schema `id`. */
  usesOf(id: number): { subject: string; version: number }[] {
    this.schemaById(id);
    const out: { subject: string; version: number }[] = [];
    for (const subject of this.subjects(false)) {
      for (const v of this.state.versions(subject)) if (v.id === id) out.push({ subject, version: v.version });
    }
    return out;
  }

  /** `POST /subjects/{subject}`: is this exact schema registered under the subject, and as which version? */
  lookup(subject: string, input: SchemaInput, includeDeleted: boolean): SubjectSchema {
    const { canonical } = parseAvroSchema(input.schema, input.schemaType, input.references);
    const versions = this.state.versions(subject, includeDeleted);
    if (versions.length === 0) throw registryErrors.subjectNotFound(subject);
    const id = this.state.idByCanonical.get(canonical);
    const found = id === undefined ? undefined : [...versions].reverse().find((v) => v.id === id);
    if (!found) throw registryErrors.schemaNotFound();
    return this.describe(subject, found);
  }

  globalLevel(): CompatibilityLevel {
    return this.state.globalLevel as CompatibilityLevel;
  }

  subjectLevel(subject: string, defaultToGlobal: boolean): CompatibilityLevel {
    const level = this.state.subjectLevels.get(subject);
    if (level !== undefined) return level as CompatibilityLevel;
    if (defaultToGlobal) return this.globalLevel();
    throw registryErrors.subjectConfigNotFound(subject);
  }

  /** `POST /compatibility/subjects/{subject}/versions[/{version}]`. */
  checkCompatibility(subject: string, ref: VersionRef | 'all', input: SchemaInput): CompatibilityProblem[] {
    const { type } = parseAvroSchema(input.schema, input.schemaType, input.references);
    const level = this.effectiveLevel(subject);
    const live = this.state.versions(subject);
    if (ref === 'all') return compatibilityProblems(level, type, this.previous(live));
    if (live.length === 0) throw registryErrors.subjectNotFound(subject);
    const target = ref === 'latest' ? live.at(-1) : live.find((v) => v.version === ref);
    if (!target) throw registryErrors.versionNotFound(ref);
    // Against one named version, a transitive level means the same as its plain form.
    const single = level.replace('_TRANSITIVE', '') as CompatibilityLevel;
    return compatibilityProblems(single, type, this.previous([target]));
  }

  // ---- writes --------------------------------------------------------------------------------------

  /** `POST /subjects/{subject}/versions`: the schema's id, registering a new version when needed. */
  register(subject: string, input: SchemaInput): Promise<{ id: number }> {
    return this.serialized(async () => {
      const { canonical, type } = parseAvroSchema(input.schema, input.schemaType, input.references);
      const known = this.state.idByCanonical.get(canonical);
      const live = this.state.versions(subject);
      if (known !== undefined && live.some((v) => v.id === known)) return { id: known };

      const level = this.effectiveLevel(subject);
      const problems = compatibilityProblems(level, type, this.previous(live));
      if (problems.length > 0) throw registryErrors.incompatible(incompatibleMessage(subject, level, problems));

      const id = known ?? this.state.nextId;
      const all = this.state.versions(subject, true);
      const version = (all.at(-1)?.version ?? 0) + 1;
      const entries: JournalEntry[] = [];
      if (known === undefined) entries.push({ t: 'schema', id, schema: canonical });
      entries.push({ t: 'version', subject, version, id });
      await this.commit(entries);
      this.types.set(id, type);
      return { id };
    });
  }

  /** `DELETE /subjects/{subject}`: the versions deleted. */
  deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    return this.serialized(async () => {
      const all = this.state.versions(subject, true);
      if (all.length === 0) throw registryErrors.subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      if (permanent) {
        if (live.length > 0) throw registryErrors.subjectNotSoftDeleted(subject);
        await this.commit([
          ...all.map((v): JournalEntry => ({ t: 'delete', subject, version: v.version, permanent: true })),
          ...(this.state.subjectLevels.has(subject) ? [{ t: 'config', subject, level: null } as const] : []),
        ]);
        return all.map((v) => v.version);
      }
      if (live.length === 0) throw registryErrors.subjectSoftDeleted(subject);
      await this.commit(live.map((v) => ({ t: 'delete', subject, version: v.version, permanent: false })));
      return live.map((v) => v.version);
    });
  }

  /** `DELETE /subjects/{subject}/versions/{version}`: the version deleted. */
  deleteVersion(subject: string, ref: VersionRef, permanent: boolean): Promise<number> {
    return this.serialized(async () => {
      const all = this.state.versions(subject, true);
      if (all.length === 0) throw registryErrors.subjectNotFound(subject);
      const target = ref === 'latest' ? all.filter((v) => !v.deleted).at(-1) : all.find((v) => v.version === ref);
      if (!target) throw registryErrors.versionNotFound(ref);
      if (permanent && !target.deleted) throw registryErrors.versionNotSoftDeleted(subject, target.version);
      if (!permanent && target.deleted) throw registryErrors.versionSoftDeleted(subject, target.version);
      await this.commit([{ t: 'delete', subject, version: target.version, permanent }]);
      return target.version;
    });
  }

  setLevel(subject: string | null, value: unknown): Promise<CompatibilityLevel> {
    return this.serialized(async () => {
      const level = parseCompatibilityLevel(value);
      if (!level) throw registryErrors.invalidCompatibilityLevel();
      await this.commit([{ t: 'config', subject, level }]);
      return level;
    });
  }

  /** `DELETE /config/{subject}`: drops the subject's own level, answering the one it had. */
  deleteSubjectLevel(subject: string): Promise<CompatibilityLevel> {
    return this.serialized(async () => {
      const previous = this.state.subjectLevels.get(subject);
      if (previous === undefined) throw registryErrors.subjectConfigNotFound(subject);
      await this.commit([{ t: 'config', subject, level: null }]);
      return previous as CompatibilityLevel;
    });
  }

  // ---- helpers -------------------------------------------------------------------------------------

  private effectiveLevel(subject: string): CompatibilityLevel {
    return this.subjectLevel(subject, true);
  }

  private previous(versions: readonly SubjectVersion[]): { version: number; type: avro.Type }[] {
    return versions.map((v) => ({ version: v.version, type: this.typeById(v.id) }));
  }

  private typeById(id: number): avro.Type {
    let type = this.types.get(id);
    if (!type) {
      type = typeOf(this.schemaById(id));
      this.types.set(id, type);
    }
    return type;
  }

  private describe(subject: string, v: SubjectVersion): SubjectSchema {
    return { subject, version: v.version, id: v.id, schema: this.schemaById(v.id) };
  }

  private async commit(entries: readonly JournalEntry[]): Promise<void> {
    try {
      await this.journal.append(entries);
    } catch (e) {
      throw registryErrors.storeFailed((e as Error).message);
    }
    for (const e of entries) this.state.apply(e);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
