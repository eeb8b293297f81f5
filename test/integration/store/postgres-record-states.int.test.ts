import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import { PostgresRecordStateStore } from '../../../src/store/record-states/postgres-record-states';
import { describeRecordStateContract } from '../../support/record-state-contract';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';

const opened: ScratchSql[] = [];
let n = 0;
afterAll(async () => {
  for (const store of opened) await store.close();
});

describeRecordStateContract('PostgreSQL', async () => {
  const store = await scratchPostgres(`record_states_${++n}`);
  opened.push(store);
  await migrate(store.sql, silentLogger());
  return new PostgresRecordStateStore(store.sql);
});
