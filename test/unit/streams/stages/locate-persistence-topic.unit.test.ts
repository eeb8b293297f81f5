import { locatePersistenceTopic } from '../../../../streams/stages/locate-persistence-topic';
import { contextOf, refusalOf, runStage } from './stage-harness';

describe('stage 4: persistence topic', () => {
  test("sets the entity's configured persistence topic", () => {
    expect(runStage(locatePersistenceTopic(), { ctx: contextOf() }).ctx.persistenceTopic).toBe('acme.merchant_account.events');
  });

  test.each(['deltas', 'rejections', 'deltabroker.outcomes', 'acme.merchant_account.actions.global', 'acme.merchant_account.actions.dc1'])(
    'refuses a configuration whose persistence topic is the reserved %s',
    (topic) => {
      const ctx = contextOf();
      const config = ctx.config as NonNullable<typeof ctx.config>;
      const out = runStage(locatePersistenceTopic(), { ctx: { ...ctx, config: { ...config, persistence: { ...config.persistence, topic } } } });
      expect(refusalOf(out)).toEqual({ code: 'DB_VALIDATION', stage: 'locate', field: 'persistence.topic', rule: 'reserved-topic' });
      expect(out.ctx.persistenceTopic).toBeUndefined();
    },
  );
});
