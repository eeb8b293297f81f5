import { post, startTestService, type TestService } from '../../support/service';

/** The state checkpoint moves while the pipeline runs, so a restart reads only the events after it. */
describe('state checkpoints follow the pipeline', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  }, 60_000);
  afterAll(() => t?.stop());

  test('after sequential writes the checkpoint covers all but (at most) the last batch', async () => {
    const auth = { authorization: `Bearer ${await t.token(['admin'])}` };
    for (let i = 0; i < 5; i++) {
      const created = await post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: `sc-${i}`, name: `n${i}` } }, auth);
      expect(created.status).toBe(201);
    }
    const rows = await t.service.sql.query<{ n: string }>('select coalesce(sum(next_offset), 0) as n from state_checkpoints where topic = $1', ['acme.merchant_account.events']);
    expect(Number(rows.rows[0]?.n)).toBeGreaterThanOrEqual(4);
    expect(Number(rows.rows[0]?.n)).toBeLessThanOrEqual(5);
  });
});
