import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveClasspath } from './engine-cache';
import { type EngineProcess, freePorts, killProcess, portAccepts, startProcess, stopProcess, waitUntilReady } from './engine-process';
import { EngineUnavailable } from './engine-unavailable';
import { findJava, type JavaRuntime } from './java-runtime';

const run = promisify(execFile);

export const KAFKA_VERSION = '4.1.1';
/** Kafka's pom leaves the log binding out (the tarball ships it): without one the broker logs nothing. */
const LOG4J_VERSION = '2.24.3';

export interface ScramUser {
  name: string;
  password: string;
}

export interface KafkaClusterOptions {
  /** Working folder: one sub-folder per node for its data, configuration and console log. */
  dir: string;
  nodes: number;
  /** Users Kafka itself holds (SCRAM-SHA-256 and -512), written at format time. */
  scramUsers?: ScramUser[];
  heapMb?: number;
}

/** One combined broker+controller of the cluster. */
export interface KafkaNode {
  id: number;
  /** PLAINTEXT listener for clients. */
  port: number;
  /** SASL_PLAINTEXT listener (SCRAM) for clients. */
  saslPort: number;
  controllerPort: number;
  dir: string;
  process: EngineProcess;
}

export interface KafkaCluster {
  clusterId: string;
  nodes: KafkaNode[];
  brokers: string[];
  saslBrokers: string[];
}

/** Kafka's Uuid: 16 random bytes, URL-safe base64 without padding, never starting with '-'. */
function clusterUuid(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function nodeProperties(node: Omit<KafkaNode, 'process'>, voters: string, size: number): string {
  const replicas = Math.min(3, size);
  const minIsr = Math.min(2, size);
  const scramJaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
  return [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `listeners=PLAINTEXT://127.0.0.1:${node.port},SASL_PLAINTEXT://127.0.0.1:${node.saslPort},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${node.port},SASL_PLAINTEXT://127.0.0.1:${node.saslPort}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `controller.quorum.voters=${voters}`,
    'sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512',
    `listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=${scramJaas}`,
    `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=${scramJaas}`,
    `log.dirs=${path.join(node.dir, 'data')}`,
    'num.partitions=3',
    `default.replication.factor=${replicas}`,
    `min.insync.replicas=${minIsr}`,
    `offsets.topic.replication.factor=${replicas}`,
    `transaction.state.log.replication.factor=${replicas}`,
    `transaction.state.log.min.isr=${minIsr}`,
    `share.coordinator.state.topic.replication.factor=${replicas}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    // Tests and laptops: no wait for more members before the first rebalance, and the service creates its topics.
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    '',
  ].join('\n');
}

const LOG4J2 = `status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = \${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.state.name = state.change.logger
logger.state.level = WARN
`;

/** The runnable classpath of the broker (Kafka's jars and a log binding), resolved once into the cache. */
export async function kafkaClasspath(): Promise<string> {
  return resolveClasspath(`kafka-${KAFKA_VERSION}`, [
    { group: 'org.apache.kafka', artifact: 'kafka_2.13', version: KAFKA_VERSION },
    { group: 'org.apache.logging.log4j', artifact: 'log4j-slf4j-impl', version: LOG4J_VERSION },
  ]);
}

function javaFor(): JavaRuntime {
  const java = findJava(17);
  if (java === undefined) throw new EngineUnavailable('Kafka 4 needs Java 17 or newer and none is installed');
  return java;
}

function startNode(java: JavaRuntime, lib: string, node: Omit<KafkaNode, 'process'>, heapMb: number): EngineProcess {
  return startProcess({
    name: `kafka-${node.id}`,
    command: java.java,
    args: [
      `-Xms${heapMb}m`,
      `-Xmx${heapMb}m`,
      '-XX:+UseG1GC',
      `-Dkafka.logs.dir=${path.join(node.dir, 'logs')}`,
      `-Dlog4j2.configurationFile=${path.join(node.dir, 'log4j2.properties')}`,
      '-cp',
      `${lib}/*`,
      'kafka.Kafka',
      path.join(node.dir, 'server.properties'),
    ],
    env: { ...process.env, JAVA_HOME: java.home },
    logFile: path.join(node.dir, 'console.log'),
  });
}

/**
 * A KRaft cluster of `nodes` combined brokers+controllers on loopback (a static quorum of all of them), formatted
 * fresh in `dir` and started together; answers once every broker accepts connections.
 */
export async function startKafkaCluster(options: KafkaClusterOptions): Promise<KafkaCluster> {
  const java = javaFor();
  const lib = await kafkaClasspath();
  const heapMb = options.heapMb ?? 512;
  const ports = await freePorts(options.nodes * 3);
  const specs = Array.from({ length: options.nodes }, (_, i) => ({
    id: i + 1,
    port: ports[i * 3] as number,
    saslPort: ports[i * 3 + 1] as number,
    controllerPort: ports[i * 3 + 2] as number,
    dir: path.join(options.dir, `node-${i + 1}`),
  }));
  const voters = specs.map((n) => `${n.id}@127.0.0.1:${n.controllerPort}`).join(',');
  const clusterId = clusterUuid();
  const scram = (options.scramUsers ?? []).flatMap((u) =>
    ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => ['--add-scram', `${m}=[name=${u.name},password=${u.password}]`]),
  );
  await Promise.all(
    specs.map(async (spec) => {
      mkdirSync(path.join(spec.dir, 'logs'), { recursive: true });
      writeFileSync(path.join(spec.dir, 'server.properties'), nodeProperties(spec, voters, options.nodes));
      writeFileSync(path.join(spec.dir, 'log4j2.properties'), LOG4J2);
      await run(
        java.java,
        ['-cp', `${lib}/*`, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', path.join(spec.dir, 'server.properties'), ...scram],
        {
          env: { ...process.env, JAVA_HOME: java.home },
          maxBuffer: 4 * 1024 * 1024,
        },
      );
    }),
  );
  const nodes = specs.map((spec) => ({ ...spec, process: startNode(java, lib, spec, heapMb) }));
  const cluster: KafkaCluster = {
    clusterId,
    nodes,
    brokers: nodes.map((n) => `127.0.0.1:${n.port}`),
    saslBrokers: nodes.map((n) => `127.0.0.1:${n.saslPort}`),
  };
  try {
    await Promise.all(nodes.map((n) => waitUntilReady(n.process, () => portAccepts(n.port), 180_000)));
  } catch (error) {
    await stopKafkaCluster(cluster);
    throw error;
  }
  return cluster;
}

/** Starts a stopped or killed node again on its own data, ports and configuration. */
export async function restartKafkaNode(cluster: KafkaCluster, id: number): Promise<void> {
  const node = cluster.nodes.find((n) => n.id === id);
  if (node === undefined) throw new Error(`no Kafka node ${id} in the cluster`);
  node.process = startNode(javaFor(), await kafkaClasspath(), node, 512);
  await waitUntilReady(node.process, () => portAccepts(node.port), 180_000);
}

export async function killKafkaNode(cluster: KafkaCluster, id: number): Promise<void> {
  const node = cluster.nodes.find((n) => n.id === id);
  if (node !== undefined) await killProcess(node.process.pid);
}

export async function stopKafkaCluster(cluster: KafkaCluster): Promise<void> {
  await Promise.all(cluster.nodes.map((n) => stopProcess(n.process.pid)));
}
