import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startKafkaCluster, stopKafkaCluster } from '../src/stack/kafka-cluster';
import { EngineUnavailable } from '../src/stack/engine-unavailable';
import { completion, copyBaseline, ms, openE2eBench } from './support/e2e-harness';
import { formatTable, quantile, type Figure } from './support/figures';
import { benchServiceConfig } from './support/service-config';

/**
 * The kafkajs burst of end-to-end.ts with the service on a Kafka 4 node instead of its embedded broker: the
 * kafkajs write-log adapter, the embedded registry, a Kafka 4 broker started from Maven jars (src/stack) as one
 * KRaft node. Information beside the embedded figures, not a target: the broker runs on the same two cores.
 * Needs Java 17 and Maven; without them the benchmark gives no figure and says why.
 * Usage: npx tsx bench/end-to-end-kafka.ts [deltas=20000]
 */
export interface KafkaEndToEndOptions {
  readonly deltas: number;
  readonly warmUp: number;
}

export async function run(options: KafkaEndToEndOptions): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-kafka-'));
  let cluster;
  try {
    cluster = await startKafkaCluster({ dir: path.join(dir, 'kafka'), nodes: 1 });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (error instanceof EngineUnavailable) {
      console.error(`end to end on Kafka 4 skipped: ${error.message}`);
      return [];
    }
    throw error;
  }
  try {
    const dataDir = path.join(dir, 'service');
    mkdirSync(dataDir);
    const bench = await openE2eBench((databaseUrl) => benchServiceConfig(dataDir, databaseUrl, { DELTABROKER_KAFKA_BROKERS: cluster.brokers.join(',') }));
    try {
      const warm = bench.phase('warm-', options.warmUp);
      await bench.timed(warm, () => bench.produce(warm, 100, 4));
      const burst = bench.phase('kafka-', options.deltas);
      const r = await bench.timed(burst, () => bench.produce(burst, 100, 4));
      return [
        {
          name: `e2e on a Kafka 4 node (kafkajs adapter): kafkajs producer → persisted+projected+actions (${options.deltas})`,
          value: options.deltas / r.seconds,
          unit: 'deltas/s',
          baseline: copyBaseline(r),
          notes:
            `information, not a target; publish→projected p50 ${ms(quantile(r.latencies, 0.5))} p99 ${ms(quantile(r.latencies, 0.99))}; ` +
            `${r.cpu} (the Kafka node's CPU is not counted); ${completion(r, options.deltas)}`,
        },
      ];
    } finally {
      await bench.close();
    }
  } finally {
    await stopKafkaCluster(cluster);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  run({ deltas: Number(process.argv[2] ?? 20_000), warmUp: 5000 })
    .then((figures) => console.log(formatTable(figures)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
