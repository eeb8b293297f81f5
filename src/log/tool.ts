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
 * After `npm run build`: `node dist/src/log/tool.js …` with the same arguments.
 */
import { DeltabrokerError } from '../errors';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ValueCodec } from './codec';
import { openKafkaWriteLog } from './kafka';
import type { ReplayStart } from './port';
import { loadSchemas, RECORD_NAMES, recordSchema, type RecordName, type RecordSchema } from './schemas';

const USAGE = `usage:
  tool encode --registry URL --topic TOPIC --schema NAME|FILE.avsc [--subject SUBJECT] < value.json > value.bin
  tool read --brokers HOST:PORT[,…] --registry URL --topic TOPIC [--from earliest|PARTITION:OFFSET|ISO-TIME|EPOCH-MS]
schemas: ${RECORD_NAMES.join(', ')}, or the path of an .avsc file`;

export function schemaNamed(nameOrFile: string): RecordSchema {
  if ((RECORD_NAMES as readonly string[]).includes(nameOrFile)) return loadSchemas()[nameOrFile as RecordName];
  if (nameOrFile.endsWith('.avsc')) return recordSchema(JSON.parse(readFileSync(path.resolve(nameOrFile), 'utf8')) as Record<string, unknown>);
  throw new DeltabrokerError('DB_BAD_REQUEST', `unknown schema ${nameOrFile}; expected one of ${RECORD_NAMES.join(', ')} or an .avsc file`, { field: '--schema', rule: 'enum' });
}

/** The wire-format bytes of a JSON value (missing fields that have defaults take them). */
export async function encodeJson(o: { registryUrl: string; subject: string; schema: RecordSchema; json: string }): Promise<Buffer> {
  const value: unknown = o.schema.type.clone(JSON.parse(o.json), { skipMissingFields: true });
  return new ValueCodec({ registryUrl: o.registryUrl }).encode(o.subject, o.schema, value);
}

export function parseFrom(text: string | undefined): ReplayStart {
  if (text === undefined || text === 'earliest') return { kind: 'earliest' };
  const offset = /^(\d+):(\d+)$/.exec(text);
  if (offset) return { kind: 'offsets', offsets: [{ partition: Number(offset[1]), offset: offset[2] as string }] };
  const timestamp = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isNaN(timestamp)) {
    throw new DeltabrokerError('DB_BAD_REQUEST', `--from ${text}: expected earliest, PARTITION:OFFSET, an ISO time or epoch milliseconds`, { field: '--from', rule: 'format' });
  }
  return { kind: 'timestamp', timestamp };
}

/** Writes each decoded record of the topic as one JSON line; answers how many were read and skipped. */
export async function readTopic(
  o: { brokers: string[]; registryUrl: string; topic: string; from: ReplayStart },
  write: (line: string) => void,
): Promise<{ records: number; rejected: number }> {
  const log = await openKafkaWriteLog({ brokers: o.brokers, registryUrl: o.registryUrl, clientId: 'deltabroker-log-tool' });
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
    },
  });
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
    });
    process.stdout.write(bytes);
    return 0;
  }
  const { records, rejected } = await readTopic(
    { brokers: values.brokers.split(','), registryUrl: values.registry, topic: values.topic, from: parseFrom(values.from) },
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
