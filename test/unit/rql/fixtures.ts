import { parseEntityConfig, type EntityConfig } from '../../../src/tenant';

/** An entity with a field of every type, for RQL tests (unit and integration). */
export const rqlEntity = (table = 'rt_merchant'): EntityConfig =>
  parseEntityConfig({
    tenant: 'rt',
    entity: 'merchant',
    key: 'merchantId',
    fields: {
      merchantId: { type: 'string', required: true },
      name: { type: 'string', required: true },
      country: 'string',
      mcc: 'integer',
      score: 'number',
      active: 'boolean',
      openedAt: 'timestamp',
      meta: 'object',
      iban: { type: 'string', sensitive: { methods: ['aes'] } },
    },
    persistence: { table },
    roles: {
      admin: { operations: '*' },
      reader: { operations: ['read'], read: { except: ['iban'] } },
    },
  });
