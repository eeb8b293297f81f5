/**
 * What of a refused delta's payload an operator may see. The payload is shown exactly as the producer sent it,
 * except: a sensitive field that is not a ciphertext (a plaintext the encryption stage refused) is withheld,
 * so showing a rejection never echoes what the pipeline refused to store; and over HTTP, where the caller is a
 * tenant's principal, only the fields the caller's roles may read are shown, and nothing when the entity is not
 * configured (no role can be allowed to read it). The CLI reads the log itself, so it sees every field.
 */
import { parseCiphertext } from '../../crypto/ciphertext';
import { isDeltabrokerError } from '../../errors';
import type { DeltaEnvelope } from '../../log';
import { fieldSpec, rightsFor, type EntityConfig } from '../../tenant';

/** Who is looking: a principal's roles (HTTP), or an operator with access to the log (CLI). */
export type PayloadAccess = { readonly kind: 'roles'; readonly roles: readonly string[] } | { readonly kind: 'log' };

export type WithheldReason = 'plaintext-sensitive' | 'not-readable';

export interface PayloadView {
  /** The payload's shown fields, the payload text when it is not a JSON object (log access only), or null. */
  readonly payload: Record<string, unknown> | string | null;
  /** Fields left out, each with why. */
  readonly withheld: readonly { readonly field: string; readonly reason: WithheldReason }[];
  /** Why the whole payload is left out, when it is. */
  readonly payloadWithheld?: string;
}

function isCiphertext(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    parseCiphertext(value);
    return true;
  } catch (error) {
    if (isDeltabrokerError(error)) return false;
    throw error;
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function viewPayload(delta: DeltaEnvelope, config: EntityConfig | undefined, access: PayloadAccess): PayloadView {
  if (delta.payload === null) return { payload: null, withheld: [] };
  let readable: (field: string) => boolean = () => true;
  if (access.kind === 'roles') {
    if (config === undefined) {
      return { payload: null, withheld: [], payloadWithheld: `${delta.tenant}/${delta.entity} is not configured, so no role may read its fields` };
    }
    const rights = rightsFor(config, access.roles, 'read');
    if (!rights.allowed)
      return { payload: null, withheld: [], payloadWithheld: `roles [${access.roles.join(', ')}] may not read ${delta.tenant}/${delta.entity}` };
    readable = (field) => rights.readable.has(field) || config.key.includes(field);
  }
  const fields = parseObject(delta.payload);
  if (fields === undefined) {
    return access.kind === 'log' && config === undefined
      ? { payload: delta.payload, withheld: [] }
      : { payload: null, withheld: [], payloadWithheld: 'the payload is not a JSON object, so its sensitive fields cannot be told apart' };
  }
  const shown: Record<string, unknown> = {};
  const withheld: { field: string; reason: WithheldReason }[] = [];
  for (const [field, value] of Object.entries(fields)) {
    const spec = config && fieldSpec(config, field);
    if (spec?.sensitive && value !== null && !isCiphertext(value)) withheld.push({ field, reason: 'plaintext-sensitive' });
    else if (!readable(field)) withheld.push({ field, reason: 'not-readable' });
    else Object.defineProperty(shown, field, { value, enumerable: true, writable: true, configurable: true });
  }
  return { payload: shown, withheld };
}
