/** Runs one pipeline stage's operator on one delta, as the pipeline does, and reads its verdict. */
import { of, type MonoTypeOperatorFunction } from 'rxjs';
import { sealAesGcm, randomKey } from '../../../../src/crypto/aes-gcm';
import { formatCiphertext, type KeyRef } from '../../../../src/crypto/ciphertext';
import type { DeltaEnvelope } from '../../../../src/log';
import type { EntityConfig } from '../../../../src/tenant';
import type { DeltaContext } from '../../../../streams/context';
import type { Candidate } from '../../../../streams/stages/stage-operator';
import { defaultConfig } from '../../tenant/fixtures';

let n = 0;
export const envelope = (over: Partial<DeltaEnvelope> = {}): DeltaEnvelope => ({
  id: `d-${++n}`,
  requestId: null,
  tenant: 'acme',
  entity: 'merchant_account',
  operation: 'create',
  key: 'm-1',
  payload: JSON.stringify({ merchantId: 'm-1', name: 'Ada' }),
  actor: { user: 'u', roles: ['admin'] },
  origin: { datacenter: 'dc1' },
  occurredAt: 0,
  expectedVersion: null,
  retryOf: null,
  ...over,
});

/** A delta as the stages before `stage` leave it: the shipped acme/merchant_account configuration, its fields parsed. */
export function contextOf(over: Partial<DeltaEnvelope> = {}, extra: Partial<DeltaContext> = {}): DeltaContext {
  const delta = envelope(over);
  const config: EntityConfig = defaultConfig();
  return { delta, source: { topic: 'deltas', partition: 2, offset: '41' }, config, fields: fieldsOf(delta.payload), ...extra };
}

function fieldsOf(payload: string | null): Record<string, unknown> | undefined {
  if (payload === null) return {};
  try {
    return JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return undefined; // what stage 2 refuses; later stages never see it
  }
}

export function runStage(operator: MonoTypeOperatorFunction<Candidate>, candidate: Candidate): Candidate {
  let out: Candidate | undefined;
  of(candidate)
    .pipe(operator)
    .subscribe((c) => (out = c));
  if (out === undefined) throw new Error('the stage emitted nothing');
  return out;
}

/** What a refusal says, for comparing: its code, the stage that refused, and the field and rule it names. */
export const refusalOf = (c: Candidate) =>
  c.refusal === undefined ? undefined : { code: c.refusal.code, stage: c.refusal.details.stage, field: c.refusal.details.field, rule: c.refusal.details.rule };

/** A real AES-GCM ciphertext in the service's format (under a throwaway key: stage 7 checks the form, not the key). */
export function ciphertext(plaintext: string, keyRef: KeyRef = { kind: 'default' }, method = 'aes256skv1'): string {
  return formatCiphertext({ method, keyRef, version: 1, sealed: sealAesGcm(randomKey(), Buffer.from(plaintext), Buffer.from('aad')) });
}
