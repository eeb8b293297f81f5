/**
 * The service on a PostgreSQL server in a container (testcontainers): migrations, the keyring, a write
 * projected and read back. Runs where a Docker engine answers; elsewhere it is skipped, saying why.
 */
import { dockerAnswers } from '../../support/docker';
import { post, startTestService, type TestService } from '../../support/service';

const POSTGRES_IMAGE = process.env.DELTABROKER_POSTGRES_IMAGE ?? 'postgres:16';
const docker = dockerAnswers();

if (!docker.ok) {
  console.warn(`SKIPPED postgres-containers suite: ${docker.why}. It runs the service against ${POSTGRES_IMAGE} where Docker is available.`);
  describe.skip(`service on PostgreSQL in a container (skipped: ${docker.why})`, () => {
    test('needs a Docker engine', () => undefined);
  });
} else {
  describe(`service on ${POSTGRES_IMAGE} (testcontainers)`, () => {
    let stopContainer: () => Promise<unknown>;
    let t: TestService;

    beforeAll(async () => {
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer(POSTGRES_IMAGE)
        .withEnvironment({ POSTGRES_USER: 'deltabroker', POSTGRES_PASSWORD: 'deltabroker', POSTGRES_DB: 'deltabroker' })
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
        .start();
      stopContainer = () => container.stop();
      const url = `postgres://deltabroker:deltabroker@${container.getHost()}:${container.getMappedPort(5432)}/deltabroker`;
      t = await startTestService({ database: { url, drop: async () => undefined } });
    }, 180_000);
    afterAll(async () => {
      await t?.stop();
      await stopContainer?.();
    });

    test('encrypts, writes, projects and reads back', async () => {
      const token = await t.token(['admin']);
      const auth = { authorization: `Bearer ${token}` };
      const encrypted = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' }, auth);
      expect(encrypted.body.ciphertext).toMatch(/^aes256skv1:/);
      const created = await post(
        `${t.url}/`,
        { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'c-1', name: 'Container' } },
        auth,
      );
      expect(created.status).toBe(201);
      const read = await post(
        `${t.url}/`,
        { dispatch: { entity: 'merchant_account', operation: 'read', after: created.body.position }, payload: 'eq(merchantId,c-1)' },
        auth,
      );
      expect(read.body.items).toEqual([expect.objectContaining({ name: 'Container' })]);
    });
  });
}
