/**
 * Generates `schema-types.ts` (the TypeScript types of the records in `schemas/*.avsc`) so that types are
 * never kept apart from the schemas by hand. A unit test fails when the generated file is stale; refresh it
 * with `npx tsx src/log/schema-codegen.ts`. `--markdown` prints the field tables of docs/records.md instead.
 *
 * Mapping (avsc defaults, as the log adapter decodes): null → null, boolean → boolean, int/long/float/double
 * → number (timestamp-millis stays a number of epoch milliseconds), string → string, bytes/fixed → Buffer,
 * enum → union of string literals, array → T[], map → Record<string, T>, ["null", T] → T | null.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readSchemaDefinitions } from './schema-files';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const PRIMITIVES: Record<string, string> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  string: 'string',
  bytes: 'Buffer',
};

class Generator {
  private readonly declared = new Map<string, string>();
  private readonly order: string[] = [];

  record(schema: Obj): string {
    return this.typeOf(schema, typeof schema.namespace === 'string' ? schema.namespace : '');
  }

  output(): string {
    return this.order.map((name) => this.declared.get(name)).join('\n\n');
  }

  private typeOf(schema: Json, namespace: string): string {
    if (typeof schema === 'string') {
      const primitive = PRIMITIVES[schema];
      if (primitive) return primitive;
      return shortName(schema);
    }
    if (Array.isArray(schema)) {
      const parts = schema.map((s) => this.typeOf(s, namespace));
      return parts.join(' | ');
    }
    if (schema === null || typeof schema !== 'object') throw new Error(`unsupported schema ${JSON.stringify(schema)}`);
    const type = schema.type;
    if (typeof type === 'string' && type in PRIMITIVES) return PRIMITIVES[type] as string;
    switch (type) {
      case 'array':
        return `${wrap(this.typeOf(schema.items as Json, namespace))}[]`;
      case 'map':
        return `Record<string, ${this.typeOf(schema.values as Json, namespace)}>`;
      case 'fixed':
        return 'Buffer';
      case 'enum':
        return this.declare(schema, namespace, (name) => {
          const symbols = (schema.symbols as string[]).map((s) => `'${s}'`).join(' | ');
          return `${docComment(schema.doc, '')}export type ${name} = ${symbols};`;
        });
      case 'record':
        return this.declare(schema, namespace, (name, ns) => {
          const fields = (schema.fields as Obj[]).map((f) => {
            const t = this.typeOf(f.type as Json, ns);
            return `${docComment(f.doc, '  ')}  ${f.name as string}: ${t};`;
          });
          return `${docComment(schema.doc, '')}export interface ${name} {\n${fields.join('\n')}\n}`;
        });
      default:
        throw new Error(`unsupported schema type ${JSON.stringify(type)}`);
    }
  }

  /** Declares a named type once; a second definition of the same name must be identical. */
  private declare(schema: Obj, namespace: string, render: (name: string, namespace: string) => string): string {
    const name = schema.name as string;
    const ns = typeof schema.namespace === 'string' ? schema.namespace : name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : namespace;
    const short = shortName(name);
    const existing = this.declared.get(short);
    if (existing === undefined) this.order.push(short);
    this.declared.set(short, ''); // placeholder for recursion
    const text = render(short, ns);
    if (existing !== undefined && existing !== '' && existing !== text) {
      throw new Error(`named type ${short} is defined differently in two schemas`);
    }
    this.declared.set(short, text);
    return short;
  }
}

const shortName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);
const wrap = (t: string): string => (t.includes('|') ? `(${t})` : t);

function docComment(doc: Json | undefined, indent: string): string {
  if (typeof doc !== 'string' || doc === '') return '';
  return `${indent}/** ${doc.replace(/\*\//g, '*\\/')} */\n`;
}

export function generateSchemaTypes(definitions: Readonly<Record<string, object>>): string {
  const g = new Generator();
  const names = Object.keys(definitions).sort();
  for (const name of names) g.record(definitions[name] as Obj);
  return [
    '// Generated from schemas/*.avsc by src/log/schema-codegen.ts; do not edit. Refresh: npx tsx src/log/schema-codegen.ts',
    '',
    g.output(),
    '',
    '/** The record types by schema name. */',
    'export interface RecordTypes {',
    ...names.map((n) => `  ${n}: ${n};`),
    '}',
    '',
  ].join('\n');
}

/** The Avro type of a field as a reader would write it: `string`, `long (timestamp-millis)`, `null | string`, … */
function avroTypeLabel(schema: Json): string {
  if (typeof schema === 'string') return shortName(schema);
  if (Array.isArray(schema)) return schema.map(avroTypeLabel).join(' | ');
  if (schema === null || typeof schema !== 'object') return String(schema);
  const t = schema.type;
  if (typeof schema.logicalType === 'string') return `${String(t)} (${schema.logicalType})`;
  if (t === 'array') return `array<${avroTypeLabel(schema.items as Json)}>`;
  if (t === 'map') return `map<${avroTypeLabel(schema.values as Json)}>`;
  if (t === 'enum') return `enum ${shortName(schema.name as string)} {${(schema.symbols as string[]).join(', ')}}`;
  if (t === 'record' || t === 'fixed') return shortName(schema.name as string);
  return avroTypeLabel(t as Json);
}

/** Markdown: per record schema, a table of its fields (nested records get their own table). */
export function generateSchemaDocs(definitions: Readonly<Record<string, object>>): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const table = (record: Obj, title: string): void => {
    const name = shortName(record.name as string);
    if (seen.has(name)) return;
    seen.add(name);
    out.push(`#### ${title}`, '', String(record.doc ?? ''), '', '| field | Avro type | default | meaning |', '|---|---|---|---|');
    const nested: Obj[] = [];
    for (const f of record.fields as Obj[]) {
      const dflt = 'default' in f ? `\`${JSON.stringify(f.default)}\`` : '';
      out.push(`| \`${String(f.name)}\` | ${avroTypeLabel(f.type as Json).replace(/\|/g, '\\|')} | ${dflt} | ${String(f.doc ?? '').replace(/\|/g, '\\|')} |`);
      const types = Array.isArray(f.type) ? f.type : [f.type];
      for (const t of types) if (t !== null && typeof t === 'object' && !Array.isArray(t) && t.type === 'record') nested.push(t);
    }
    out.push('');
    for (const n of nested) table(n, `${shortName(n.name as string)} (in ${name})`);
  };
  for (const name of Object.keys(definitions).sort()) table(definitions[name] as Obj, `${name} (\`schemas/${name}.avsc\`)`);
  return out.join('\n');
}

export const GENERATED_FILE = path.join(__dirname, 'schema-types.ts');

if (require.main === module) {
  if (process.argv.includes('--markdown')) {
    process.stdout.write(generateSchemaDocs(readSchemaDefinitions()));
  } else {
    writeFileSync(GENERATED_FILE, generateSchemaTypes(readSchemaDefinitions()));
    process.stdout.write(`wrote ${GENERATED_FILE}\n`);
  }
}
