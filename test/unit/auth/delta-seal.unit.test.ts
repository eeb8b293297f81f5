import { createHmac, randomBytes } from 'node:crypto';
import { DeltaSeal } from '../../../src/auth/delta-seal';
import type { DeltaEnvelope } from '../../../src/log';
import { loadSchemas } from '../../../src/log';

const key = randomBytes(32);
const seal = new DeltaSeal(key);
const hmac = (text: string): string => createHmac('sha256', key).update(text).digest('base64url');

const delta = (): DeltaEnvelope => ({
  id: 'd-1',
  requestId: 'r-"1"',
  tenant: 'acme',
  entity: 'merchant_account',
  operation: 'create',
  key: 'm-1',
  payload: '{"merchantId":"m-1","name":"Zoë"}',
  actor: { user: 'alice', roles: ['writer', 'admin'] },
  origin: { datacenter: 'dc1' },
  occurredAt: 1764000000123,
  expectedVersion: null,
  retryOf: null,
});

describe('DeltaSeal', () => {
  it('is an HMAC-SHA-256 over the envelope with its keys sorted, so seals on the log stay valid across versions', () => {
    const text =
      '{"actor":{"roles":["writer","admin"],"user":"alice"},"entity":"merchant_account","expectedVersion":null,"id":"d-1","key":"m-1",' +
      '"occurredAt":1764000000123,"operation":"create","origin":{"datacenter":"dc1"},"payload":"{\\"merchantId\\":\\"m-1\\",\\"name\\":\\"Zoë\\"}",' +
      '"requestId":"r-\\"1\\"","retryOf":null,"tenant":"acme"}';
    expect(seal.seal(delta())).toBe(hmac(text));
  });

  it('gives the same seal for the envelope as Avro decodes it', () => {
    const { DeltaEnvelope: schema } = loadSchemas();
    const decoded = schema.type.fromBuffer(schema.type.toBuffer(delta())) as DeltaEnvelope;
    expect(seal.verify(decoded, seal.seal(delta()))).toBe(true);
  });

  it('covers fields beyond the schema, and tells a missing field from a null one, as the generic walk does', () => {
    const extra = { ...delta(), comment: 'x' } as DeltaEnvelope;
    expect(seal.seal(extra)).not.toBe(seal.seal(delta()));
    const missing: Partial<DeltaEnvelope> = delta();
    delete missing.retryOf;
    expect(seal.seal(missing as DeltaEnvelope)).not.toBe(seal.seal(delta()));
    expect(seal.seal({ ...missing, retryOF: null } as unknown as DeltaEnvelope)).not.toBe(seal.seal(delta()));
  });

  it('refuses a changed actor, role, payload or a missing seal', () => {
    const sealed = seal.seal(delta());
    expect(seal.verify({ ...delta(), actor: { user: 'mallory', roles: ['writer', 'admin'] } }, sealed)).toBe(false);
    expect(seal.verify({ ...delta(), actor: { user: 'alice', roles: ['writer', 'admin', 'eraser'] } }, sealed)).toBe(false);
    expect(seal.verify({ ...delta(), payload: '{}' }, sealed)).toBe(false);
    expect(seal.verify(delta(), undefined)).toBe(false);
  });
});
