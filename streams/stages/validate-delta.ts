import { DeltabrokerError } from '../../src/errors';
import { recordKeyOf, type EntityConfig, type FieldSpec } from '../../src/tenant';
import { firstLeafPath, loneSurrogatePath, mayHoldLoneSurrogate, mayHoldNul, nulPath, storableText } from '../../src/text/well-formed';
import { required } from '../context';
import { STAGES } from '../../src/log/topology';
import { stage } from './stage-operator';

const MAX_KEY_LENGTH = 512;
/**
 * Levels of objects and arrays a payload may nest, itself the first. Deeper, JSON.stringify overflows the stack when
 * the event is made, and PostgreSQL's jsonb input its own: every retry of the batch would fail the same way.
 */
export const MAX_PAYLOAD_DEPTH = 100;

/** Stage 2: the payload is a JSON object whose fields are configured, of their type, with required ones present. */
export const validateDelta = () =>
  stage(STAGES.validate, (ctx) => {
    const config = required(ctx, 'config');
    const { delta } = ctx;
    const fields = parsePayload(delta.payload, delta.operation);
    if (delta.key === '' || delta.key.length > MAX_KEY_LENGTH) refuse('key', 'key-length', `the record key must be 1 to ${MAX_KEY_LENGTH} characters`);
    // Names the store keeps as text: PostgreSQL's cannot hold U+0000 (the tenant and entity name a configuration).
    if (!storableText(delta.key)) refuse('key', 'nul-character', 'the record key holds U+0000 (NUL), which the service cannot store');
    if (!storableText(delta.id)) refuse('id', 'nul-character', 'the delta id holds U+0000 (NUL), which the service cannot store');
    if (delta.operation !== 'delete') {
      // for…in, not Object.entries: no arrays per delta (parsed payloads and configurations have no inherited fields).
      for (const name in fields) checkField(config, name, fields[name]);
      for (const name in config.fields) {
        if (config.fields[name]!.required && (fields[name] === undefined || fields[name] === null))
          refuse(`payload.${name}`, 'required', `${name} is required`);
      }
    }
    const keyInPayload = recordKeyOf(config, fields);
    if (keyInPayload !== undefined && keyInPayload !== delta.key) {
      refuse(`payload.${config.key.join(',')}`, 'key-mismatch', `the payload's key (${keyInPayload.slice(0, 64)}) differs from the delta's key`);
    }
    ctx.fields = fields;
  });

function parsePayload(payload: string | null, operation: string): Record<string, unknown> {
  if (payload === null) {
    if (operation === 'delete') return {};
    return refuse('payload', 'required', `${operation} needs a payload`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return refuse('payload', 'json', 'the payload is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return refuse('payload', 'object', 'the payload must be a JSON object');
  const lone = mayHoldLoneSurrogate(payload) ? loneSurrogatePath(parsed, 'payload') : undefined;
  if (lone !== undefined) refuse(lone, 'utf16', `${lone} holds a lone UTF-16 surrogate, which no UTF-8 text can carry`);
  if (mayNestDeeperThan(payload, MAX_PAYLOAD_DEPTH) && depthOf(parsed) > MAX_PAYLOAD_DEPTH)
    refuse('payload', 'max-depth', `the payload nests objects and arrays more than ${MAX_PAYLOAD_DEPTH} levels deep`);
  // A number beyond a double's range parses as ±Infinity, which the event's JSON would write as null: a field's own
  // type check refuses it; inside an object field it is found here.
  const infinite = mayOverflowDouble(payload) ? firstLeafPath(parsed, 'payload', (leaf) => typeof leaf === 'number' && !Number.isFinite(leaf)) : undefined;
  if (infinite !== undefined) refuse(infinite, 'finite-number', `${infinite} is beyond the range of a double`);
  const nul = mayHoldNul(payload) ? nulPath(parsed, 'payload') : undefined;
  if (nul !== undefined) refuse(nul, 'nul-character', `${nul} holds U+0000 (NUL), which the service cannot store`);
  return parsed as Record<string, unknown>;
}

/** Each level opens with `{` or `[`: JSON text holding at most `levels` of them cannot nest deeper (strings may hold some). */
function mayNestDeeperThan(jsonText: string, levels: number): boolean {
  let openings = 0;
  for (const bracket of ['{', '[']) {
    for (let at = jsonText.indexOf(bracket); at >= 0; at = jsonText.indexOf(bracket, at + 1)) if (++openings > levels) return true;
  }
  return false;
}

/** Only an exponent of three digits or a run of 309 digits can spell a number beyond a double's range (about 1.8e308). */
const mayOverflowDouble = (jsonText: string): boolean => /[eE]\+?\d{3}|\d{309}/.test(jsonText);

/** How many levels of objects and arrays `value` nests (a scalar: 0), walked with its own stack. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_PAYLOAD_DEPTH) return deepest;
    for (const item of Array.isArray(node) ? node : Object.values(node)) stack.push([item, depth + 1]);
  }
  return deepest;
}

function checkField(config: EntityConfig, name: string, value: unknown): void {
  const spec: FieldSpec | undefined = Object.hasOwn(config.fields, name) ? config.fields[name] : undefined;
  if (!spec) refuse(`payload.${name}`, 'unknown-field', `${name} is not a field of ${config.entity}`);
  if (value === null) {
    if (spec?.required) refuse(`payload.${name}`, 'required', `${name} may not be null`);
    return;
  }
  if (spec && !hasType(spec.type, value)) refuse(`payload.${name}`, `type:${spec.type}`, `${name} must be of type ${spec.type}`);
}

function hasType(type: FieldSpec['type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'timestamp':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value));
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
  }
}

function refuse(field: string, rule: string, message: string): never {
  throw new DeltabrokerError('DB_VALIDATION', message, { field, rule });
}
