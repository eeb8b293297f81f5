import type { RecordSchema, WriteLog } from '../../src/log';

/** Every record of a topic, from the beginning to its current end, decoded with the given schema. */
export async function readTopic<T>(
  log: WriteLog,
  topic: string,
  schema: RecordSchema<T>,
): Promise<{ value: T; partition: number; offset: string; headers: Readonly<Record<string, string>> }[]> {
  try {
    await log.topicOffsets(topic);
  } catch {
    return [];
  }
  const out: { value: T; partition: number; offset: string; headers: Readonly<Record<string, string>> }[] = [];
  await log.replay<T>({
    topic,
    readerSchema: schema,
    handleBatch: async (batch) => {
      for (const r of batch.records) out.push({ value: r.value, partition: r.partition, offset: r.offset, headers: r.headers });
    },
  });
  return out;
}

/** Polls `probe` until it returns a value that `done` accepts, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
