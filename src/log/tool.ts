/**
 * Small operator tool for the log, for use with any Kafka client (kcat has no Avro support in Debian):
 *
 *   encode: JSON on stdin → a value in the Confluent wire format on stdout (registers the schema under
 *           `<topic>-value` first, as the service does), ready for `kcat -P`.
 *   read:   a topic's records from earliest / an offset / a time, decoded, as JSON lines on stdout; stops at
 *           the end offsets the topic had when it started.
 *
 *   npx tsx src/log/tool.ts encode --registry http://127.0.0.1:8081 --topic deltas --schema DeltaEnvelope < delta.json > delta.bin
 *   npx tsx src/log/tool.ts read --brokers 127.0.0.1:9092 --registry http://127.0.0.1:8081 --topic deltas [--from earliest|<partition>:<offset>|<ISO time>]
 *
 * Identity: `--sasl-username`/`--sasl-password` (`--sasl-mechanism`, default scram-sha-256) and
 * `--registry-auth user:password`, or the same DELTABROKER_KAFKA_SASL_* / DELTABROKER_SCHEMA_REGISTRY_BASIC_AUTH
 * variables the service reads; without them, beside a running service, the `client` user of its embedded broker
 * and registry (`<data dir>/credentials/`, data dir from `--data-dir`, DELTABROKER_DATA_DIR or ./data).
 *
 * After `npm run build`: `node dist/src/log/tool.js …` with the same arguments.
 */
import { DeltabrokerError } from '../errors';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runningKafkaCredentials, runningRegistryCredentials } from '../embedded/engine-credentials';
import { ValueCodec } from './codec';
import { openKafkaWriteLog, type KafkaSasl, type RegistryAuth } from './kafka';
import type { ReplayStart } from './port';
import { loadSchemas, RECORD_NAMES, recordSchema, type RecordName, type RecordSchema } from './schemas';

const USAGE = `usage:
  tool encode --registry URL --topic TOPIC --schema NAME|FILE.avsc [--subject SUBJECT] < value.json > value.bin
  tool read --brokers HOST:PORT[,…] --registry URL --topic TOPIC [--from earliest|PARTITION:OFFSET|ISO-TIME|EPOCH-MS]
identity (either command): [--sasl-username U --sasl-password P [--sasl-mechanism scram-sha-256|scram-sha-512|plain]]
  [--registry-auth USER:PASSWORD] [--data-dir DIR (a running service's client credentials; default ./data)]
schemas: ${RECORD_NAMES.join(', ')}, or the path of an .avsc file`;

export function schemaNamed(nameOrFile: string): RecordSchema {
  if ((RECORD_NAMES as readonly string[]).includes(nameOrFile)) return loadSchemas()[nameOrFile as RecordName];
  if (nameOrFile.endsWith('.avsc')) return recordSchema(JSON.parse(readFileSync(path.resolve(nameOrFile), 'utf8')) as Record<string, unknown>);
  throw new DeltabrokerError('DB_BAD_REQUEST', `unknown schema ${nameOrFile}; expected one of ${RECORD_NAMES.join(', ')} or an .avsc file`, {
    field: '--schema',
    rule: 'enum',
  });
}

export interface ToolIdentity {
  readonly sasl?: KafkaSasl;
  readonly registryAuth?: RegistryAuth;
}

const MECHANISMS: readonly KafkaSasl['mechanism'][] = ['scram-sha-256', 'scram-sha-512', 'plain'];

type IdentityFlags = { 'sasl-username'?: string; 'sasl-password'?: string; 'sasl-mechanism'?: string; 'registry-auth'?: string; 'data-dir'?: string };

/** Who the tool is on the broker and the registry: flags, then the service's variables, then a running service's `client` user. */
export function toolIdentity(flags: IdentityFlags, env: NodeJS.ProcessEnv = process.env): ToolIdentity {
  const dataDir = path.resolve(flags['data-dir'] ?? env.DELTABROKER_DATA_DIR ?? './data');
  const username = flags['sasl-username'] ?? env.DELTABROKER_KAFKA_SASL_USERNAME;
  const password = flags['sasl-password'] ?? env.DELTABROKER_KAFKA_SASL_PASSWORD;
  const named = flags['sasl-mechanism'] ?? env.DELTABROKER_KAFKA_SASL_MECHANISM ?? 'scram-sha-256';
  const mechanism = MECHANISMS.find((m) => m === named);
  if (!mechanism) throw new Error(`--sasl-mechanism ${named}: expected ${MECHANISMS.join(', ')}`);
  if ((username === undefined) !== (password === undefined)) throw new Error('--sasl-username and --sasl-password go together');
  const kafkaClient = runningKafkaCredentials(dataDir)?.client;
  const sasl = username !== undefined && password !== undefined ? { mechanism, username, password } : kafkaClient && { mechanism, ...kafkaClient };
  const basic = flags['registry-auth'] ?? env.DELTABROKER_SCHEMA_REGISTRY_BASIC_AUTH;
  const colon = basic?.indexOf(':') ?? -1;
  if (basic !== undefined && colon < 1) throw new Error('--registry-auth: expected USER:PASSWORD');
  const registryAuth =
    basic !== undefined ? { username: basic.slice(0, colon), password: basic.slice(colon + 1) } : runningRegistryCredentials(dataDir)?.client;
  return { ...(sasl && { sasl }), ...(registryAuth && { registryAuth }) };
}

/** The wire-format bytes of a JSON value (missing fields that have defaults take them). */
export async function encodeJson(o: {
  registryUrl: string;
  subject: string;
  schema: RecordSchema;
  json: string;
  registryAuth?: RegistryAuth;
}): Promise<Buffer> {
  const value: unknown = o.schema.type.clone(JSON.parse(o.json), { skipMissingFields: true });
  return new ValueCodec({ registryUrl: o.registryUrl, ...(o.registryAuth && { auth: o.registryAuth }) }).encode(o.subject, o.schema, value);
}

export function parseFrom(text: string | undefined): ReplayStart {
  if (text === undefined || text === 'earliest') return { kind: 'earliest' };
  const offset = /^(\d+):(\d+)$/.exec(text);
  if (offset) return { kind: 'offsets', offsets: [{ partition: Number(offset[1]), offset: offset[2] as string }] };
  const timestamp = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isNaN(timestamp)) {
    throw new DeltabrokerError('DB_BAD_REQUEST', `--from ${text}: expected earliest, PARTITION:OFFSET, an ISO time or epoch milliseconds`, {
      field: '--from',
      rule: 'format',
    });
  }
  return { kind: 'timestamp', timestamp };
}

/** Writes each decoded record of the topic as one JSON line; answers how many were read and skipped. */
export async function readTopic(
  o: { brokers: string[]; registryUrl: string; topic: string; from: ReplayStart } & ToolIdentity,
  write: (line: string) => void,
): Promise<{ records: number; rejected: number }> {
  const log = await openKafkaWriteLog({
    brokers: o.brokers,
    registryUrl: o.registryUrl,
    clientId: 'deltabroker-log-tool',
    replayGroupPrefix: 'log-tool-replay', // the service's `deltabroker-` groups are not the client user's
    ...(o.sasl && { sasl: o.sasl }),
    ...(o.registryAuth && { registryAuth: o.registryAuth }),
  });
  try {
    const result = await log.replay({
      topic: o.topic,
      from: o.from,
      handleBatch: async (batch) => {
        for (const r of batch.records) write(JSON.stringify(r));
      },
      onRejected: (r) => write(JSON.stringify({ rejected: r })),
    });
    return { records: result.records, rejected: result.rejected };
  } finally {
    await log.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      registry: { type: 'string', default: 'http://127.0.0.1:8081' },
      brokers: { type: 'string', default: '127.0.0.1:9092' },
      topic: { type: 'string' },
      schema: { type: 'string' },
      subject: { type: 'string' },
      from: { type: 'string' },
      'sasl-username': { type: 'string' },
      'sasl-password': { type: 'string' },
      'sasl-mechanism': { type: 'string' },
      'registry-auth': { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  const identity = toolIdentity(values);
  if (!values.topic || (command !== 'encode' && command !== 'read')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === 'encode') {
    if (!values.schema) throw new DeltabrokerError('DB_BAD_REQUEST', 'encode needs --schema', { field: '--schema', rule: 'required' });
    const bytes = await encodeJson({
      registryUrl: values.registry,
      subject: values.subject ?? `${values.topic}-value`,
      schema: schemaNamed(values.schema),
      json: readFileSync(0, 'utf8'),
      ...(identity.registryAuth && { registryAuth: identity.registryAuth }),
    });
    process.stdout.write(bytes);
    return 0;
  }
  const { records, rejected } = await readTopic(
    { brokers: values.brokers.split(','), registryUrl: values.registry, topic: values.topic, from: parseFrom(values.from), ...identity },
    (line) => process.stdout.write(`${line}\n`),
  );
  process.stderr.write(`${records} records, ${rejected} undecodable\n`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
