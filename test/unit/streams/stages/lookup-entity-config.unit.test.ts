import { DeltabrokerError } from '../../../../src/errors';
import { entityConfigInvalid, InMemoryEntityConfigSource, type EntityConfigSource } from '../../../../src/tenant';
import { BatchConfigs } from '../../../../streams/batch-configs';
import { lookupEntityConfig } from '../../../../streams/stages/lookup-entity-config';
import { defaultConfigInput } from '../../tenant/fixtures';
import { envelope, refusalOf, runStage } from './stage-harness';

describe('stage 1: entity configuration', () => {
  const source = new InMemoryEntityConfigSource([defaultConfigInput()]);

  test("sets the tenant's configuration of the entity", async () => {
    const delta = envelope();
    const out = runStage(lookupEntityConfig(await BatchConfigs.load(source, [delta])), { ctx: { delta, source: undefined } });
    expect(out.refusal).toBeUndefined();
    expect(out.ctx.config).toMatchObject({ tenant: 'acme', entity: 'merchant_account', key: ['merchantId'] });
  });

  test("refuses an entity the tenant does not have, and another tenant's entity of that name", async () => {
    const unknown = envelope({ entity: 'invoice' });
    const foreign = envelope({ tenant: 'globex' });
    const configs = await BatchConfigs.load(source, [unknown, foreign]);
    for (const delta of [unknown, foreign]) {
      expect(refusalOf(runStage(lookupEntityConfig(configs), { ctx: { delta, source: undefined } }))).toEqual({
        code: 'DB_NOT_FOUND',
        stage: 'entity-config',
        field: 'dispatch.entity',
        rule: 'configured-entity',
      });
    }
  });

  test('a configuration the tenant API refuses is the verdict; one it cannot answer fails the batch', async () => {
    const delta = envelope();
    const refusing: EntityConfigSource = {
      get: () => Promise.reject(new DeltabrokerError('DB_CONFLICT', 'names taken', { rule: 'name-taken' })),
      list: async () => ({ configs: [], refused: [] }),
    };
    expect(refusalOf(runStage(lookupEntityConfig(await BatchConfigs.load(refusing, [delta])), { ctx: { delta, source: undefined } }))).toMatchObject({
      code: 'DB_CONFLICT',
      stage: 'entity-config',
      rule: 'name-taken',
    });
    const down: EntityConfigSource = { get: () => Promise.reject(new Error('ECONNREFUSED')), list: async () => ({ configs: [], refused: [] }) };
    await expect(BatchConfigs.load(down, [delta])).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE', retriable: true });
  });

  test('an invalid configuration is the verdict for its deltas (to the rejections topic), never a retried batch', async () => {
    const delta = envelope();
    const invalid: EntityConfigSource = {
      get: () =>
        Promise.reject(
          entityConfigInvalid('invalid entity configuration in acme/merchant_account.yaml: persistence.topic: outside', {
            source: 'acme/merchant_account.yaml',
            field: 'persistence.topic',
            rule: 'tenant-namespace',
          }),
        ),
      list: async () => ({ configs: [], refused: [] }),
    };
    const out = runStage(lookupEntityConfig(await BatchConfigs.load(invalid, [delta])), { ctx: { delta, source: undefined } });
    expect(out.refusal).toMatchObject({
      code: 'DB_ENTITY_CONFIG_INVALID',
      retriable: false,
      details: { stage: 'entity-config', source: 'acme/merchant_account.yaml', field: 'persistence.topic', rule: 'tenant-namespace' },
    });
  });
});
