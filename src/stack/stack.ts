/**
 * The production shape on one machine without Docker: a Kafka 4 cluster, Apicurio Registry and a PostgreSQL server
 * that every deltabroker instance shares, as processes that outlive the command which started them. Its state
 * (pids, ports, addresses) is kept in `<dir>/stack.json`, so `status`, `env` and `down` work from any shell.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../logger';
import { startEmbeddedPostgres } from '../store/embedded-postgres/embedded-postgres';
import { isAlive, stopProcess } from './engine-process';
import { type KafkaCluster, startKafkaCluster, stopKafkaCluster } from './kafka-cluster';
import { type SchemaRegistry, startSchemaRegistry } from './schema-registry';

export interface StackOptions {
  dir: string;
  /** 1 for a laptop; 3 for the replicated shape (replication factor 3, min.insync.replicas 2). */
  kafkaNodes: number;
}

export interface StackState {
  dir: string;
  kafka: KafkaCluster;
  registry: SchemaRegistry;
  /** The shared PostgreSQL server's superuser URL (password included: the file is the operator's own, mode 0600). */
  databaseUrl: string;
}

export interface EngineStatus {
  name: string;
  pid: number;
  running: boolean;
  address: string;
}

const stateFile = (dir: string): string => path.join(dir, 'stack.json');
const postgresDir = (dir: string): string => path.join(dir, 'postgres-server');

export function readStack(dir: string): StackState | undefined {
  return existsSync(stateFile(dir)) ? (JSON.parse(readFileSync(stateFile(dir), 'utf8')) as StackState) : undefined;
}

/** Starts every engine together; refuses when a stack recorded in `dir` still runs. */
export async function stackUp(options: StackOptions): Promise<StackState> {
  const running = readStack(options.dir);
  if (running && stackStatus(running).some((engine) => engine.running)) {
    throw new Error(`a stack already runs from ${options.dir}: run \`deltabroker stack down\` first`);
  }
  // Every engine starts empty: a Kafka formatted afresh beside the tables of an older run would look like lost topics.
  rmSync(options.dir, { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  const [kafka, registry, postgres] = await Promise.all([
    startKafkaCluster({ dir: path.join(options.dir, 'kafka'), nodes: options.kafkaNodes }),
    startSchemaRegistry({ dir: path.join(options.dir, 'registry') }),
    startEmbeddedPostgres({ dataDir: postgresDir(options.dir), port: 0, logger: silentLogger(), database: 'deltabroker' }),
  ]);
  const state: StackState = { dir: options.dir, kafka, registry, databaseUrl: postgres.url };
  writeFileSync(stateFile(options.dir), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
}

export async function stackDown(dir: string): Promise<void> {
  const state = readStack(dir);
  if (state === undefined) return;
  const postgres = await startEmbeddedPostgres({ dataDir: postgresDir(dir), port: 0, logger: silentLogger() });
  await Promise.all([stopKafkaCluster(state.kafka), stopProcess(state.registry.process.pid), postgres.stop()]);
  rmSync(stateFile(dir), { force: true });
}

export function stackStatus(state: StackState): EngineStatus[] {
  return [
    ...state.kafka.nodes.map((node) => ({
      name: `kafka-${node.id}`,
      pid: node.process.pid,
      running: isAlive(node.process.pid),
      address: `127.0.0.1:${node.port}`,
    })),
    { name: 'schema-registry', pid: state.registry.process.pid, running: isAlive(state.registry.process.pid), address: state.registry.url },
  ];
}

/** The settings that point `npm start` (or any instance) at the stack. */
export function stackEnv(state: StackState): Record<string, string> {
  return {
    DELTABROKER_KAFKA_BROKERS: state.kafka.brokers.join(','),
    DELTABROKER_SCHEMA_REGISTRY_URL: state.registry.url,
    DATABASE_URL: state.databaseUrl,
  };
}
