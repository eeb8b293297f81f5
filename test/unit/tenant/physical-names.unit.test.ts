/** The mapping (tenant, entity) → physical objects is injective, and a configuration stays in its namespace. */
import { claimsOf, isTenantName, parseEntityConfig, physicalNamesOf, safeParseEntityConfig, topicCollisionKey, type EntityConfig } from '../../../src/tenant';
import { minimalInput } from './fixtures';

const configOf = (tenant: string, entity: string, persistence: Record<string, string> = {}): EntityConfig =>
  parseEntityConfig({ ...minimalInput(), tenant, entity, persistence, notifications: ['global', 'local'] });

/** Every physical object of a configuration, as strings that must never be shared across (tenant, entity). */
function objectsOf(config: EntityConfig): string[] {
  const names = physicalNamesOf(config);
  return [
    `table:${names.schema}.${names.table}`,
    `index:${names.index}`,
    `topic:${names.topic}`,
    `subject:${names.topic}-value`,
    `topic:${config.notifications.globalTopic}`,
    `topic:${config.notifications.localTopicPrefix}.dc1`,
  ];
}

describe('physical names', () => {
  test("the issue's pair, acme/merchant_account and acme_merchant/account, shares no table, index, topic or subject", () => {
    const acme = configOf('acme', 'merchant_account');
    const squatter = configOf('acme_merchant', 'account');
    expect(physicalNamesOf(acme)).toEqual({
      schema: 'tenant_acme',
      table: 'merchant_account',
      index: 'acme__merchant_account',
      topic: 'acme.merchant_account.events',
    });
    expect(physicalNamesOf(squatter)).toEqual({
      schema: 'tenant_acme_merchant',
      table: 'account',
      index: 'acme_merchant__account',
      topic: 'acme_merchant.account.events',
    });
    const shared = objectsOf(acme).filter((o) => objectsOf(squatter).includes(o));
    expect(shared).toEqual([]);
  });

  test("a configuration naming acme's table or index explicitly gets its own tenant's object", () => {
    const squatter = configOf('evil', 'account', { table: 'acme_merchant_account', index: 'merchant_account' });
    expect(physicalNamesOf(squatter)).toMatchObject({ schema: 'tenant_evil', table: 'acme_merchant_account', index: 'evil__merchant_account' });
    const squatterOfAcmeSchema = configOf('evil', 'account', { table: 'merchant_account' });
    expect(`${physicalNamesOf(squatterOfAcmeSchema).schema}.${physicalNamesOf(squatterOfAcmeSchema).table}`).not.toBe('tenant_acme.merchant_account');
  });

  test("a configuration naming another tenant's topic is refused", () => {
    for (const [key, value] of [
      ['persistence', { topic: 'acme.merchant_account.events' }],
      ['persistence', { topic: 'acme_merchant_account_events' }],
      ['notifications', { methods: ['global'], globalTopic: 'acme.merchant_account.actions.global' }],
      ['notifications', { methods: ['local'], localTopicPrefix: 'acme.merchant_account.actions' }],
    ] as const) {
      const result = safeParseEntityConfig({ ...minimalInput(), tenant: 'evil', entity: 'account', [key]: value });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues[0]?.message).toMatch(/outside the tenant's namespace: it must start with "evil\."/);
    }
  });

  test('is injective over every way of splitting names at underscores', () => {
    // Each word string can be cut into (tenant, entity) at any underscore; every cut must give other objects.
    const strings = ['a_b_c_d', 'acme_merchant_account', 'x1_y2_z3_w4_v5', 'one_two'];
    const seen = new Map<string, string>();
    let configs = 0;
    for (const s of strings) {
      const words = s.split('_');
      for (let cut = 1; cut < words.length; cut++) {
        const tenant = words.slice(0, cut).join('_');
        const entity = words.slice(cut).join('_');
        configs += 1;
        for (const object of objectsOf(configOf(tenant, entity))) {
          const owner = `${tenant}/${entity}`;
          expect([object, seen.get(object) ?? owner]).toEqual([object, owner]);
          seen.set(object, owner);
        }
      }
    }
    // 10 configurations, 6 objects each, none shared.
    expect([configs, seen.size]).toEqual([10, 60]);
  });

  test('Kafka would take acme.merchant_account.events for acme_merchant.account.events: their claims name one topic', () => {
    expect(topicCollisionKey('acme.merchant_account.events')).toBe(topicCollisionKey('acme_merchant.account.events'));
    const acme = claimsOf(configOf('acme', 'merchant_account'), 'dc1').filter((c) => c.kind === 'topic');
    const squatter = claimsOf(configOf('acme_merchant', 'account'), 'dc1').filter((c) => c.kind === 'topic');
    expect(squatter.map((c) => c.name)).toEqual(acme.map((c) => c.name));
    expect(new Set([...acme, ...squatter].map((c) => c.owner))).toEqual(new Set(['acme', 'acme_merchant']));
  });
});

describe('the tenant name pattern', () => {
  test.each(['acme', 'acme_merchant', 'a1', 't1_x2', 'a'.repeat(30)])('accepts %j', (name) => expect(isTenantName(name)).toBe(true));
  test.each(['../acme', 'ACME', 'acme ', 'acme%00', 'acme\u0000', 'ａｃｍｅ', 'acme__x', 'acme_', '_acme', '1acme', 'acme.x', 'acme-x', '', 'a'.repeat(31)])(
    'refuses %j',
    (name) => expect(isTenantName(name)).toBe(false),
  );
});
