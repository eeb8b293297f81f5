import { startTestService, type TestService } from '../../support/service';

/** The service registers the value schema of every topic it reads or writes when it starts. */
describe('record schemas registered at start', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  }, 60_000);
  afterAll(() => t?.stop());

  test('deltas, rejections, outcomes and each configured entity’s persistence and action topics have subjects', async () => {
    const subjects = (await (await fetch(`${t.service.registryUrl}/subjects`)).json()) as string[];
    expect(subjects).toEqual(
      expect.arrayContaining([
        'deltas-value',
        'rejections-value',
        'deltabroker.outcomes-value',
        'acme.merchant_account.events-value',
        'acme.merchant_account.actions.global-value',
        `acme.merchant_account.actions.${t.config.datacenter}-value`,
      ]),
    );
    const latest = (await (await fetch(`${t.service.registryUrl}/subjects/deltas-value/versions/latest`)).json()) as { schema: string };
    expect(JSON.parse(latest.schema)).toMatchObject({ name: 'DeltaEnvelope' });
  });
});
