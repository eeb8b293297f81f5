import type { SubjectRecordsReader } from '../../src/store/subject-records';
import type { SqlClient } from '../../src/store/sql-client';
import { projectionTableOf } from '../postgres/table-schema';

/** The records naming a data subject, read from each entity's projection table (by its subject field). */
export function tableSubjectRecords(sql: SqlClient): SubjectRecordsReader {
  return {
    async recordsOf(config, subject, maxKeys) {
      const table = projectionTableOf(config);
      const column = table.fieldColumns.find((c) => c.name === config.subject);
      if (!column) return { records: 0, keys: [] };
      const key = `concat_ws(':', ${table.keyColumns.map((k) => `${k.ident}::text`).join(', ')})`;
      try {
        const result = await sql.query<{ key: string; total: string }>(
          `select ${key} as key, count(*) over () as total from ${table.qualifiedName} where ${column.ident} = $1 order by 1 limit ${maxKeys}`,
          [subject],
        );
        return { records: Number(result.rows[0]?.total ?? 0), keys: result.rows.map((r) => r.key) };
      } catch (error) {
        // No table yet: the entity's projector has not started; nothing is held there.
        if ((error as { code?: string }).code === '42P01') return { records: 0, keys: [] };
        throw error;
      }
    },
  };
}
