import { parseEntityConfig, type EntityConfig } from '../../../src/tenant';

/** The input of an entity with a field of every type, for RQL tests (unit and integration). */
export const rqlEntityInput = (table = 'rt_merchant') => ({
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

export const rqlEntity = (table = 'rt_merchant'): EntityConfig => parseEntityConfig(rqlEntityInput(table));
