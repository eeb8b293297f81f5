import { BrokerContext } from './broker';
import type { GroupCoordinator } from './group/coordinator';
import { type EmbeddedKafkaOptions, resolveOptions } from './options';
import { KafkaServer } from './server/server';
import type { LogManager } from './storage/log-manager';
import type { TransactionCoordinator } from './txn/coordinator';

export type { EmbeddedKafkaOptions, FsyncPolicy } from './options';
export { ALLOW_ALL, ANONYMOUS, type Authorizer, type KafkaPrincipal } from './security/authorizer';
export { reservedResourcesAuthorizer, type ReservedResources } from './security/reserved-resources';

export interface EmbeddedKafka {
  /** The bound address. */
  readonly host: string;
  readonly port: number;
  /** `host:port` for client configuration (the advertised address). */
  readonly brokers: string[];
  /** The broker's own parts, for the write-log adapter that runs in this same process. */
  readonly parts: EmbeddedKafkaParts;
  stop(): Promise<void>;
}

/**
 * What a write log in the broker's own process works on instead of the Kafka protocol: the partition logs
 * (append, read, high watermarks, the fsync group commit) and the group coordinator with its committed offsets.
 */
export interface EmbeddedKafkaParts {
  readonly logs: LogManager;
  readonly groups: GroupCoordinator;
  /** Transactional producers' coordinator (what an in-process transactional writer would end its transactions with). */
  readonly transactions: TransactionCoordinator;
  /** Aborted when the broker stops. */
  readonly stopping: AbortSignal;
}

/**
 * Starts the single-node Kafka-protocol broker on `host:port` over files in `dataDir` (recovering what a
 * previous run left, torn tails truncated). `stop()` closes connections, fsyncs and closes the files.
 */
export async function startEmbeddedKafka(options: EmbeddedKafkaOptions): Promise<EmbeddedKafka> {
  const resolved = resolveOptions(options);
  const broker = new BrokerContext(resolved);
  const server = new KafkaServer(broker, resolved.maxFrameBytes);
  try {
    await broker.transactions.recover();
    broker.boundPort = await server.listen(resolved.port, resolved.host);
  } catch (err) {
    await broker.close();
    throw err;
  }
  const host = resolved.host;
  const port = broker.boundPort;
  broker.logger.info({ host, port, dataDir: resolved.dataDir, fsync: resolved.fsync, topics: broker.logs.topics().length }, 'embedded kafka broker listening');
  let stopping: Promise<void> | undefined;
  return {
    host,
    port,
    brokers: [`${broker.host}:${broker.port}`],
    parts: { logs: broker.logs, groups: broker.groups, transactions: broker.transactions, stopping: broker.stopping },
    stop() {
      stopping ??= (async () => {
        await server.close();
        await broker.close();
        broker.logger.info({ host, port }, 'embedded kafka broker stopped');
      })();
      return stopping;
    },
  };
}
