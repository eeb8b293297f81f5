import { DeltabrokerError } from '../errors';

/**
 * The encryption methods and their aliases (seed section 9). An explicit method names its version; an alias
 * always resolves to the newest explicit method of its family. Ciphertexts carry the explicit name only.
 */
export type MethodFamily = 'aes' | 'hsm';

export interface MethodSpec {
  readonly name: string;
  readonly family: MethodFamily;
  readonly description: string;
}

const EXPLICIT: readonly MethodSpec[] = [
  { name: 'aes256skv1', family: 'aes', description: 'AES-256-GCM in software under a versioned keyring key' },
  { name: 'hsmv1', family: 'hsm', description: 'AES-256-GCM inside a PKCS#11 HSM; the key never leaves it' },
];

const ALIASES: Readonly<Record<MethodFamily, string>> = { aes: 'aes256skv1', hsm: 'hsmv1' };

const byName = new Map(EXPLICIT.map((m) => [m.name, m]));

export function isExplicitMethod(name: string): boolean {
  return byName.has(name);
}

/** Resolves an explicit method or an alias; refuses anything else, naming the field. */
export function resolveMethod(name: string, field = 'dispatch.method'): MethodSpec {
  const explicit = byName.get(name) ?? byName.get(ALIASES[name as MethodFamily] ?? '');
  if (!explicit) {
    throw new DeltabrokerError('DB_UNKNOWN_METHOD', `unknown method '${name}'; use one of ${allMethodNames().join(', ')}`, {
      field,
      rule: 'enum',
      stage: 'dispatch',
    });
  }
  return explicit;
}

export function newestMethod(family: MethodFamily): MethodSpec {
  return resolveMethod(ALIASES[family]);
}

export function allMethodNames(): string[] {
  return [...byName.keys(), ...Object.keys(ALIASES)];
}
