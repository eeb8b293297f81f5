import { Kafka, logLevel, type Admin } from 'kafkajs';
import { persistenceTopicSpec } from '../../src/log/topology';

/**
 * Deletes every topic but Kafka's internal ones, and every consumer group, so a suite on the shared cluster
 * starts as on a new one. Waits until the deletions are visible in the metadata.
 */
export async function emptyKafka(brokers: string[]): Promise<void> {
  const admin = new Kafka({ brokers, clientId: 'test-reset', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    // One at a time: a group that still has members (a service the last suite left running) is not deletable, and
    // the others still go.
    for (const group of groups) await admin.deleteGroups([group]).catch(() => undefined);
    await deleteAndWait(
      admin,
      (await admin.listTopics()).filter((t) => !t.startsWith('__')),
      brokers,
    );
  } finally {
    await admin.disconnect();
  }
}

/** Deletes the topics and waits until the metadata no longer lists them. */
export async function deleteKafkaTopics(brokers: string[], topics: string[]): Promise<void> {
  const admin = new Kafka({ brokers, clientId: 'test-reset', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await deleteAndWait(admin, topics, brokers);
  } finally {
    await admin.disconnect();
  }
}

/** Deletes a persistence topic and creates it again, empty, with the spec the service gives it. */
export async function recreatePersistenceTopic(brokers: string[], topic: string): Promise<void> {
  const admin = new Kafka({ brokers, clientId: 'test-reset', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await deleteAndWait(admin, [topic], brokers);
    const spec = persistenceTopicSpec(topic);
    const topics = [{ topic, numPartitions: spec.partitions, configEntries: Object.entries(spec.config).map(([name, value]) => ({ name, value })) }];
    // A controller may still be finishing the deletion the metadata no longer shows: it answers TOPIC_ALREADY_EXISTS.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.createTopics({ topics, waitForLeaders: true });
        return;
      } catch (error) {
        if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Deletes the topics and waits until no broker's metadata lists them. Brokers learn of a deletion one after another:
 * a service started meanwhile could ask one that still lists a topic, take it as existing and not create it again.
 */
async function deleteAndWait(admin: Admin, topics: string[], brokers: string[]): Promise<void> {
  if (topics.length === 0) return;
  await admin.deleteTopics({ topics, timeout: 30_000 });
  for (const broker of brokers) {
    // An admin seeded with this broker alone asks it for metadata: the only broker it has connected to.
    const one = new Kafka({ brokers: [broker], clientId: 'test-reset', logLevel: logLevel.NOTHING }).admin();
    await one.connect();
    for (let attempt = 0; ; attempt++) {
      const listed = await one.listTopics();
      if (!listed.some((t) => topics.includes(t))) break;
      if (attempt >= 100) {
        await one.disconnect();
        throw new Error(`${broker} still listed some of ${topics.join(', ')} 10 s after their deletion`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await one.disconnect();
  }
}
