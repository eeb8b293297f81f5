import { post, startTestService, type TestService } from '../../support/service';
import { eventually } from '../../support/topics';

/** The state checkpoint moves while the pipeline runs, so a restart reads only the events after it. */
describe('state checkpoints follow the pipeline', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  }, 60_000);
  afterAll(() => t?.stop());

  test('within about a second of the writes the checkpoint covers every event the pipeline recorded', async () => {
    const auth = { authorization: `Bearer ${await t.token(['admin'])}` };
    for (let i = 0; i < 5; i++) {
      const created = await post(
        `${t.url}/`,
        { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: `sc-${i}`, name: `n${i}` } },
        auth,
      );
      expect(created.status).toBe(201);
    }
    const covered = async () =>
      Number(
        (
          await t.service.sql.query<{ n: string }>('select coalesce(sum(next_offset), 0) as n from state_checkpoints where topic = $1', [
            'acme.merchant_account.events',
          ])
        ).rows[0]?.n,
      );
    expect(await eventually(covered, (n) => n === 5, 5000)).toBe(5);
  });
});
