/**
 * The search projector on the Postgres adapter, as the service runs it: a round's documents are written inside the
 * transaction that claims and advances its checkpoints, so the two commit together or not at all.
 */
import { physicalNamesOf } from '../../../src/tenant';
import { eventually } from '../../support/topics';
import { scratchPostgres } from '../../support/scratch-sql';
import { accountConfig, lastPerPartition, openReplayHarness, uniqueName, type ReplayHarness } from '../replay/replay-harness';

describe('search projector on the Postgres adapter', () => {
  let h: ReplayHarness;

  beforeAll(async () => {
    const { sql, close } = await scratchPostgres('dbt_search_projector');
    h = await openReplayHarness(sql, close);
  });
  afterAll(async () => h?.close());

  test('a round whose checkpoint cannot advance leaves no document behind; its retry writes them with the checkpoint', async () => {
    const config = h.put(accountConfig(uniqueName('acct')));
    const index = physicalNamesOf(config).index;
    // Refuses every advance of the search projector's checkpoints while it is listed, counting the refusals in a
    // sequence (which a rollback does not undo). Claims leave next_offset as it is and pass.
    await h.sql.query(`create sequence refused_advances`);
    await h.sql.query(`create table advances_refused_for (projector text primary key)`);
    await h.sql.query(`insert into advances_refused_for values ($1)`, [h.groups.search]);
    await h.sql.query(`create function refuse_advance() returns trigger language plpgsql as $$
      begin
        if new.next_offset <> old.next_offset and exists (select 1 from advances_refused_for r where r.projector = new.projector) then
          perform nextval('refused_advances');
          raise exception 'checkpoint advance refused by the test';
        end if;
        return new;
      end $$`);
    await h.sql.query(`create trigger refuse_advance before update on projection_checkpoints for each row execute function refuse_advance()`);
    const documents = async (): Promise<number> => {
      const answer = await h.search.search(index, { query: { match_all: {} } });
      return answer.hits.total?.value ?? -1;
    };
    try {
      await h.startLive();
      const positions = await h.publish(
        config,
        ['a1', 'a2', 'a3'].map((key) => ({ operation: 'create' as const, key, version: 1, payload: { accountId: key, name: `name of ${key}` } })),
      );
      await eventually(
        async () => Number((await h.sql.query<{ n: string }>(`select last_value::text as n from refused_advances where is_called`)).rows[0]?.n ?? 0),
        (refused) => refused >= 2,
      );
      expect(await documents()).toBe(0);

      await h.sql.query(`delete from advances_refused_for`);
      await h.applied(lastPerPartition(positions));
      expect(await documents()).toBe(3);
    } finally {
      await h.sql.query(`drop trigger if exists refuse_advance on projection_checkpoints`);
    }
  });
});

describe('search projector on the Postgres adapter, keeping up', () => {
  let h: ReplayHarness;

  beforeAll(async () => {
    const { sql, close } = await scratchPostgres('dbt_search_projector_held');
    h = await openReplayHarness(sql, close);
  });
  afterAll(async () => h?.close());

  const creates = (keys: readonly string[]) =>
    keys.map((key) => ({ operation: 'create' as const, key, version: 1, payload: { accountId: key, name: `name of ${key}` } }));

  test('after its first round on a partition it claims no checkpoint: each round is one statement', async () => {
    const config = h.put(accountConfig(uniqueName('acct')));
    // Counts the search projector's claims: a claim updates its checkpoint row to the offset it holds.
    await h.sql.query(`create table search_claims (n int not null)`);
    await h.sql.query(`insert into search_claims values (0)`);
    await h.sql.query(`create function count_search_claim() returns trigger language plpgsql as $$
      begin
        if new.projector = '${h.groups.search}' and new.next_offset = old.next_offset then update search_claims set n = n + 1; end if;
        return new;
      end $$`);
    await h.sql.query(`create trigger count_search_claim before update on projection_checkpoints for each row execute function count_search_claim()`);
    const claims = async (): Promise<number> => (await h.sql.query<{ n: number }>(`select n from search_claims`)).rows[0]?.n ?? -1;
    try {
      await h.startLive();
      // Enough keys first that the projector has applied every partition once (3 partitions, 30 keys).
      const first = await h.publish(config, creates(Array.from({ length: 30 }, (_, i) => `p${i}`)));
      await h.applied(lastPerPartition(first));
      const claimed = await claims();
      for (let round = 0; round < 3; round += 1) await h.applied(lastPerPartition(await h.publish(config, creates([`r${round}a`, `r${round}b`]))));
      expect(await claims()).toBe(claimed);
      const answer = await h.search.search(physicalNamesOf(config).index, { query: { match_all: {} } });
      expect(answer.hits.total?.value).toBe(36);
    } finally {
      await h.sql.query(`drop trigger if exists count_search_claim on projection_checkpoints`);
      await h.stopLive();
    }
  });
});
