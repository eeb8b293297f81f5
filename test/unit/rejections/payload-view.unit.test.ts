import { viewPayload } from '../../../src/broker/rejections/payload-view';
import { matchesFilter, parseSince } from '../../../src/broker/rejections/rejection-filter';
import type { DeltaEnvelope, Rejection } from '../../../src/log';
import { defaultConfig } from '../tenant/fixtures';

const CIPHERTEXT = `aes256skv1:default:v1:${Buffer.alloc(40, 7).toString('base64url')}`;

const envelope = (payload: string | null): DeltaEnvelope => ({
  id: 'd-1',
  requestId: null,
  tenant: 'acme',
  entity: 'merchant_account',
  operation: 'create',
  key: 'm-1',
  payload,
  actor: { user: 'u', roles: ['writer'] },
  origin: { datacenter: 'dc1' },
  occurredAt: 0,
  expectedVersion: null,
  retryOf: null,
});

describe('viewPayload', () => {
  const config = defaultConfig();

  test('log access: every field as sent, a ciphertext kept, a plaintext in a sensitive field withheld', () => {
    expect(viewPayload(envelope(JSON.stringify({ merchantId: 'm-1', name: 'Ada', iban: CIPHERTEXT, extra: 1 })), config, { kind: 'log' })).toEqual({
      payload: { merchantId: 'm-1', name: 'Ada', iban: CIPHERTEXT, extra: 1 },
      withheld: [],
    });
    expect(viewPayload(envelope(JSON.stringify({ merchantId: 'm-1', iban: 'DE89370400440532013000' })), config, { kind: 'log' })).toEqual({
      payload: { merchantId: 'm-1' },
      withheld: [{ field: 'iban', reason: 'plaintext-sensitive' }],
    });
  });

  test('roles: only what they may read (keys always), nothing without read rights or configuration', () => {
    const payload = JSON.stringify({ merchantId: 'm-1', name: 'Ada', iban: CIPHERTEXT, nickname: 'x' });
    expect(viewPayload(envelope(payload), config, { kind: 'roles', roles: ['reader'] })).toEqual({
      payload: { merchantId: 'm-1', name: 'Ada' },
      withheld: [
        { field: 'iban', reason: 'not-readable' },
        { field: 'nickname', reason: 'not-readable' },
      ],
    });
    expect(viewPayload(envelope(payload), config, { kind: 'roles', roles: ['writer'] })).toMatchObject({
      payload: null,
      payloadWithheld: 'roles [writer] may not read acme/merchant_account',
    });
    expect(viewPayload(envelope(payload), undefined, { kind: 'roles', roles: ['admin'] })).toMatchObject({
      payload: null,
      payloadWithheld: expect.stringContaining('not configured'),
    });
  });

  test('a payload that is not a JSON object: its text for the log when no field can be sensitive, else withheld', () => {
    expect(viewPayload(envelope('[1,2]'), undefined, { kind: 'log' })).toEqual({ payload: '[1,2]', withheld: [] });
    expect(viewPayload(envelope('{"iban": "DE8'), config, { kind: 'log' })).toMatchObject({
      payload: null,
      payloadWithheld: expect.stringContaining('not a JSON object'),
    });
    expect(viewPayload(envelope(null), config, { kind: 'roles', roles: ['admin'] })).toEqual({ payload: null, withheld: [] });
  });
});

describe('rejection filters', () => {
  const now = Date.UTC(2026, 10, 23, 12);

  test('since: ISO times and durations back from now; anything else names the field', () => {
    expect(parseSince('2026-11-23T06:00:00Z', 'since', 'cli', now)).toBe(Date.UTC(2026, 10, 23, 6));
    expect(parseSince('30m', 'since', 'cli', now)).toBe(now - 30 * 60_000);
    expect(parseSince('7d', 'since', 'cli', now)).toBe(now - 7 * 86_400_000);
    for (const bad of ['yesterday', '0h', '5w', '', '2026-13-45']) {
      expect(() => parseSince(bad, 'since', 'rejections', now)).toThrow(
        expect.objectContaining({ code: 'DB_VALIDATION', details: { field: 'since', rule: 'time', stage: 'rejections' } }),
      );
    }
  });

  test('every given field must match; ids match delta ids and, for undecodable records, rejection ids', () => {
    const r = {
      id: 'rej-1',
      stage: 'permission',
      reason: 'DB_FORBIDDEN',
      deltaId: 'd-1',
      tenant: 'acme',
      entity: 'merchant_account',
      rejectedAt: now,
    } as Rejection;
    expect(matchesFilter(r, { tenant: 'acme', stage: 'permission', code: 'DB_FORBIDDEN', entity: 'merchant_account', since: now })).toBe(true);
    expect(matchesFilter(r, { since: now + 1 })).toBe(false);
    expect(matchesFilter(r, { tenant: 'globex' })).toBe(false);
    expect(matchesFilter(r, { ids: new Set(['d-1']) })).toBe(true);
    expect(matchesFilter({ ...r, deltaId: null, tenant: null }, { ids: new Set(['rej-1']) })).toBe(true);
    expect(matchesFilter({ ...r, deltaId: null, tenant: null }, { tenant: 'acme' })).toBe(false);
  });
});
