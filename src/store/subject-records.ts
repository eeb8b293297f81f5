import type { EntityConfig } from '../tenant';

/**
 * Where the records of one entity that name a data subject are read (right of access): its table projection
 * (projections/subjects/subject-records.ts implements it). `keys` lists at most `maxKeys` record keys; `records`
 * counts them all.
 */
export interface SubjectRecordsReader {
  recordsOf(config: EntityConfig, subject: string, maxKeys: number): Promise<{ records: number; keys: string[] }>;
}
