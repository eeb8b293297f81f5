/**
 * The rules of an entity configuration that span several fields (keys, personal data, roles, the tenant's
 * namespace), checked once the input schema (entity-config-input.ts) holds. Each broken rule is one issue at the
 * path it is about, with a stable rule name (see config-issues.ts) that refusals report.
 */
import type { z } from 'zod';
import { ROLE_NAME } from './entity-config';
import { fieldName, type EntityConfigInput } from './entity-config-input';
import { maxIndexNameLength, tenantTopicPrefix } from './physical-names';

type Path = (string | number)[];

const issue = (ctx: z.RefinementCtx, path: Path, rule: string, message: string): void => ctx.addIssue({ code: 'custom', path, message, params: { rule } });

export function checkReferences(c: EntityConfigInput, ctx: z.RefinementCtx): void {
  // Record keys are checked here: zod reports a bad record key only as "Invalid key in record".
  const names = Object.keys(c.fields);
  for (const n of names) {
    const r = fieldName.safeParse(n);
    if (!r.success) issue(ctx, ['fields', n], 'field-name', `${JSON.stringify(n)}: ${r.error.issues[0]?.message ?? 'invalid field name'}`);
  }
  for (const role of Object.keys(c.roles)) {
    if (!ROLE_NAME.test(role)) {
      issue(
        ctx,
        ['roles', role],
        'role-name',
        `${JSON.stringify(role)}: role name may hold letters, digits, "_", ".", ":" and "-", not starting with "_", ".", ":" or "-"`,
      );
    }
  }
  const known = new Set(names);
  const lower = new Map<string, string>();
  for (const n of names) {
    const other = lower.get(n.toLowerCase());
    if (other !== undefined) issue(ctx, ['fields', n], 'case-collision', `field "${n}" differs from "${other}" only by case`);
    lower.set(n.toLowerCase(), n);
  }
  checkKeys(c, ctx, known);
  for (const [name, s] of Object.entries(c.fields)) {
    if (s.sensitive !== undefined && s.type !== 'string') {
      issue(ctx, ['fields', name, 'sensitive'], 'ciphertext-type', `sensitive field "${name}" must be of type string (it holds a ciphertext)`);
    }
  }
  checkPersonal(c, ctx, known);
  for (const [role, r] of Object.entries(c.roles)) {
    for (const which of ['write', 'read'] as const) {
      const set = r[which];
      const list = set.only ?? set.except ?? [];
      const base = ['roles', role, which, ...(set.only === undefined ? ['except'] : [])];
      list.forEach((f, i) => {
        if (!known.has(f)) issue(ctx, [...base, i], 'declared', `field "${f}" is not declared under fields`);
      });
    }
  }
  const methods = c.notifications.methods;
  if (new Set(methods).size !== methods.length) issue(ctx, ['notifications'], 'unique', 'notification methods repeat');
  checkNamespace(c, ctx);
}

/** Key fields are declared strings or integers, in clear, each named once. */
function checkKeys(c: EntityConfigInput, ctx: z.RefinementCtx, known: Set<string>): void {
  const keys = c.key;
  keys.forEach((k, i) => {
    const path = ['key', i];
    const s = known.has(k) ? c.fields[k] : undefined;
    if (s === undefined) return issue(ctx, path, 'declared', `key field "${k}" is not declared under fields`);
    if (s.type !== 'string' && s.type !== 'integer') issue(ctx, path, 'key-type', `key field "${k}" must be of type string or integer, not ${s.type}`);
    if (s.sensitive !== undefined) issue(ctx, path, 'key-in-clear', `key field "${k}" may not be sensitive (keys travel in clear as message keys)`);
  });
  if (new Set(keys).size !== keys.length) issue(ctx, ['key'], 'unique', 'key fields repeat');
}

/** Personal fields need a subject field, are strings under AES subject keys, and are never keys. */
function checkPersonal(c: EntityConfigInput, ctx: z.RefinementCtx, known: Set<string>): void {
  const personal = Object.entries(c.fields).filter(([, s]) => s.personal === true);
  if (c.subject !== undefined) {
    const s = known.has(c.subject) ? c.fields[c.subject] : undefined;
    if (s === undefined) issue(ctx, ['subject'], 'declared', `subject field "${c.subject}" is not declared under fields`);
    else if (s.type !== 'string') issue(ctx, ['subject'], 'subject-type', `subject field "${c.subject}" must be of type string (a subject id)`);
    else if (s.sensitive !== undefined || s.personal === true) {
      issue(ctx, ['subject'], 'subject-in-clear', `subject field "${c.subject}" may not be sensitive or personal (it names the subject's key, in clear)`);
    }
  } else if (personal.length > 0) {
    issue(ctx, ['subject'], 'subject-required', `personal fields (${personal.map(([n]) => n).join(', ')}) need a subject field naming the data subject`);
  }
  for (const [name, s] of personal) {
    if (c.key.includes(name))
      issue(ctx, ['fields', name, 'personal'], 'personal-key', `key field "${name}" may not be personal (record keys are never erased)`);
    if (s.type !== 'string')
      issue(ctx, ['fields', name, 'personal'], 'ciphertext-type', `personal field "${name}" must be of type string (it holds a ciphertext)`);
    const methods = s.sensitive?.methods ?? [];
    if (methods.some((m) => !m.startsWith('aes'))) {
      issue(ctx, ['fields', name, 'sensitive', 'methods'], 'personal-methods', `personal field "${name}" is sealed under an AES subject key: only aes methods`);
    }
  }
}

/** A configuration names objects only inside its tenant's namespace (see physical-names.ts). */
function checkNamespace(c: EntityConfigInput, ctx: z.RefinementCtx): void {
  const prefix = tenantTopicPrefix(c.tenant);
  const topics: [Path, string | undefined][] = [
    [['persistence', 'topic'], c.persistence.topic],
    [['notifications', 'globalTopic'], c.notifications.globalTopic],
    [['notifications', 'localTopicPrefix'], c.notifications.localTopicPrefix],
  ];
  for (const [path, topic] of topics) {
    if (topic !== undefined && !topic.startsWith(prefix)) {
      issue(ctx, path, 'tenant-namespace', `topic "${topic}" is outside the tenant's namespace: it must start with "${prefix}"`);
    }
  }
  const maxIndex = maxIndexNameLength(c.tenant);
  if (c.persistence.index !== undefined && c.persistence.index.length > maxIndex) {
    issue(ctx, ['persistence', 'index'], 'max-length', `index name is longer than ${maxIndex} characters (tenant "${c.tenant}" and "__" come before it)`);
  }
}
