/**
 * Validation of index definitions and of the documents written into an index. Both adapters call these, so
 * Postgres and Elasticsearch accept and refuse the same things.
 */
import { DeltabrokerError } from '../errors';
import { SEARCH_FIELD_TYPES, type IndexDefinition, type IndexField, type SearchDocument } from './search-port';

/** Lower case so that the same name is a valid Elasticsearch index and a Postgres table (at most 63). */
const INDEX_NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** No leading underscore: Elasticsearch reserves those names for metadata fields (`_id`, `_source`, …). */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
/** ISO 8601 date or date-time, the forms both Postgres and Elasticsearch parse the same way. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const MAX_ID_BYTES = 512;

const invalid = (field: string, rule: string, message: string): DeltabrokerError =>
  new DeltabrokerError('DB_VALIDATION', message, { field, rule, stage: 'search' });

export function isIndexName(name: unknown): name is string {
  return typeof name === 'string' && INDEX_NAME.test(name);
}

export function assertIndexName(name: unknown): asserts name is string {
  if (!isIndexName(name)) {
    throw invalid(
      'index.name',
      'identifier',
      `invalid index name ${JSON.stringify(name)}: use lower-case letters, digits, underscores, starting with a letter (at most 63)`,
    );
  }
}

/** Returns a frozen copy of `index` after checking names, types and uniqueness. */
export function validateIndexDefinition(index: IndexDefinition): IndexDefinition {
  assertIndexName(index?.name);
  if (!Array.isArray(index.fields)) throw invalid('index.fields', 'type', 'index fields must be an array');
  const seen = new Set<string>();
  const fields = index.fields.map((field: IndexField, i) => {
    if (typeof field?.name !== 'string' || !FIELD_NAME.test(field.name)) {
      throw invalid(
        `index.fields[${i}].name`,
        'identifier',
        `invalid field name ${JSON.stringify(field?.name)}: use letters, digits, underscores, starting with a letter (at most 63)`,
      );
    }
    if (!(SEARCH_FIELD_TYPES as readonly string[]).includes(field.type)) {
      throw invalid(`index.fields[${i}].type`, 'enum', `field ${field.name}: type must be one of ${SEARCH_FIELD_TYPES.join(', ')}`);
    }
    if (seen.has(field.name)) throw invalid(`index.fields[${i}].name`, 'unique', `field ${field.name} is declared twice`);
    seen.add(field.name);
    if (field.sensitive !== undefined && typeof field.sensitive !== 'boolean') {
      throw invalid(`index.fields[${i}].sensitive`, 'type', `field ${field.name}: sensitive must be a boolean`);
    }
    if (field.sensitive === true && field.type !== 'string') {
      throw invalid(`index.fields[${i}].sensitive`, 'field-type', `field ${field.name}: only string fields hold ciphertext`);
    }
    return Object.freeze(field.sensitive === true ? { name: field.name, type: field.type, sensitive: true } : { name: field.name, type: field.type });
  });
  return Object.freeze({ name: index.name, fields: Object.freeze(fields) });
}

export function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value) || !isCalendarDay(value)) return false;
  // A date alone is valid once its day is; a time and offset are checked by Date.parse (e.g. hour 25).
  return value.length === 10 || !Number.isNaN(Date.parse(withZone(value)));
}

/** JavaScript rolls 2024-02-30 over to March 1st; Postgres refuses it. Digits of `yyyy-mm-dd` at the start. */
function isCalendarDay(value: string): boolean {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Elasticsearch reads a date-time without an offset as UTC; JavaScript would read it as local time. */
export function withZone(value: string): string {
  return /[T ]\d{2}:\d{2}/.test(value) && !/(?:Z|z|[+-]\d{2}(?::?\d{2})?)$/.test(value.slice(10)) ? `${value}Z` : value;
}

/** Checks document `doc`'s value of `field`. Its path is written only for a refusal: projectors check every field of every document. */
function checkValue(field: IndexField, value: unknown, doc: number | undefined): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value) && field.type !== 'object') {
    throw invalid(valuePath(doc, field), 'array-not-supported', `field ${field.name} holds an array; only object fields may`);
  }
  const ok =
    field.type === 'string'
      ? typeof value === 'string'
      : field.type === 'integer'
        ? Number.isSafeInteger(value)
        : field.type === 'number'
          ? typeof value === 'number' && Number.isFinite(value)
          : field.type === 'boolean'
            ? typeof value === 'boolean'
            : field.type === 'timestamp'
              ? isIsoTimestamp(value)
              : typeof value === 'object';
  if (!ok)
    throw invalid(
      valuePath(doc, field),
      'type',
      `field ${field.name} must be ${field.type === 'timestamp' ? 'an ISO 8601 timestamp' : `of type ${field.type}`}`,
    );
}

/** A part of a document as a refusal names it: `docs[i].…` within an upsert, or the lone document's own path. */
const documentPath = (doc: number | undefined, part: string): string => (doc === undefined ? part : `docs[${doc}].${part}`);

const valuePath = (doc: number | undefined, field: IndexField): string => documentPath(doc, `source.${field.name}`);

/** Whether a JSON value holds U+0000 in a string or a key (PostgreSQL text cannot). Iterative: bodies may nest deeply. */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        if (k.includes('\u0000')) return true;
        pending.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

/** Checks ids, versions and every declared field's value; undeclared keys are kept but never indexed. */
export function validateDocuments(index: IndexDefinition, docs: readonly SearchDocument[]): void {
  const given: unknown = docs;
  if (!Array.isArray(given)) throw invalid('docs', 'type', 'documents must be an array');
  docs.forEach((doc, i) => checkDocument(index, doc, i));
}

/** Whether `error` is validateDocuments' refusal of a document (not of the call itself, nor any other failure). */
export function isDocumentRefusal(error: unknown): error is DeltabrokerError {
  return (
    error instanceof DeltabrokerError && error.code === 'DB_VALIDATION' && error.details.stage === 'search' && /^docs\[\d+\]\./.test(error.details.field ?? '')
  );
}

/**
 * Why the index would refuse `doc` (its refusal, naming the document's field and rule), or undefined when it takes
 * it: a projector passes over the events whose documents no index can hold instead of retrying them forever.
 */
export function documentRefusal(index: IndexDefinition, doc: SearchDocument): DeltabrokerError | undefined {
  try {
    checkDocument(index, doc, undefined);
    return undefined;
  } catch (error) {
    if (error instanceof DeltabrokerError) return error;
    throw error;
  }
}

function checkDocument(index: IndexDefinition, doc: SearchDocument, i: number | undefined): void {
  if (typeof doc?.id !== 'string' || doc.id.length === 0 || Buffer.byteLength(doc.id) > MAX_ID_BYTES) {
    throw invalid(documentPath(i, 'id'), 'type', `document id must be a non-empty string of at most ${MAX_ID_BYTES} bytes`);
  }
  if (!Number.isSafeInteger(doc.version) || doc.version < 0) {
    throw invalid(documentPath(i, 'version'), 'type', 'document version must be a non-negative integer');
  }
  if (doc.source === null || typeof doc.source !== 'object' || Array.isArray(doc.source)) {
    throw invalid(documentPath(i, 'source'), 'type', 'document source must be a JSON object');
  }
  for (const field of index.fields) checkValue(field, doc.source[field.name], i);
  // Postgres jsonb cannot hold U+0000; refusing it on both adapters keeps them interchangeable.
  if (containsNul(doc.source)) throw invalid(documentPath(i, 'source'), 'nul-character', 'document text may not contain U+0000');
}

export function validateIds(ids: readonly string[]): void {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || id.length === 0)) {
    throw invalid('ids', 'type', 'ids must be an array of non-empty strings');
  }
}

/** Last write per id wins within one batch, unless an earlier one carries a higher version. */
export function latestPerId(docs: readonly SearchDocument[]): SearchDocument[] {
  const byId = new Map<string, SearchDocument>();
  for (const doc of docs) {
    const seen = byId.get(doc.id);
    if (seen === undefined || seen.version <= doc.version) byId.set(doc.id, doc);
  }
  return [...byId.values()];
}
