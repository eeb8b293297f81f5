/**
 * The real engines of a test run (Kafka 4 cluster, schema registry), started once by global-setup.js and stopped
 * by global-teardown.js. Suites find them through the environment (`realEngines()`); where an engine cannot run
 * (no `java` or `mvn`), or DELTABROKER_TEST_ENGINES leaves it out, suites skip and print why.
 *
 * DELTABROKER_TEST_ENGINES: `all` (default), `off`, or a comma list of `kafka`, `registry`, `opensearch`, `elasticsearch`.
 * The search engines' URLs also go to TEST_OPENSEARCH_URL and TEST_ELASTICSEARCH_URL (test/support/search-engines.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mavenAvailable } from '../../src/stack/engine-cache';
import { isAlive, stopProcess } from '../../src/stack/engine-process';
import { EngineUnavailable } from '../../src/stack/engine-unavailable';
import { type KafkaCluster, startKafkaCluster } from '../../src/stack/kafka-cluster';
import { startSchemaRegistry, type SchemaRegistry } from '../../src/stack/schema-registry';
import { startElasticsearch } from '../../src/stack/elasticsearch';
import { startOpenSearch } from '../../src/stack/opensearch';
import type { StartedEngine } from '../../src/stack/started-engine';
import { deleteKafkaTopics, recreatePersistenceTopic } from './kafka-reset';

export const ENGINE_NAMES = ['kafka', 'registry', 'opensearch', 'elasticsearch'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** The SCRAM user Kafka holds for the suites that authenticate. */
export const KAFKA_SCRAM_USER = { name: 'deltabroker-test', password: 'scram-test-secret' };

/** What global setup wrote for the suites: each engine's description, or why it is not there. */
export interface EngineState {
  dir: string;
  /** The test run's process (jest): its engines are leftovers only once it is gone. */
  ownerPid?: number;
  kafka?: KafkaCluster;
  registry?: SchemaRegistry;
  opensearch?: StartedEngine;
  elasticsearch?: StartedEngine;
  unavailable: Partial<Record<EngineName, string>>;
}

const STATE_ENV = 'TEST_ENGINES_STATE';
/** Where the last run's state is kept, so a run that died without teardown leaves no engine running. */
const LAST_STATE = path.join(tmpdir(), 'deltabroker-test-engines.json');

function wanted(): Set<EngineName> {
  const setting = (process.env.DELTABROKER_TEST_ENGINES ?? 'all').trim();
  if (setting === 'all') return new Set(ENGINE_NAMES);
  if (setting === 'off') return new Set();
  return new Set(setting.split(',').map((name) => name.trim()) as EngineName[]);
}

function pidsOf(state: EngineState): number[] {
  return [
    ...(state.kafka?.nodes.map((n) => n.process.pid) ?? []),
    ...[state.registry, state.opensearch, state.elasticsearch].flatMap((engine) => (engine ? [engine.process.pid] : [])),
  ];
}

/** Stops the engines of a run that died without its teardown; a run still going (another jest) keeps its own. */
async function stopLeftovers(): Promise<void> {
  if (!existsSync(LAST_STATE)) return;
  const state = JSON.parse(readFileSync(LAST_STATE, 'utf8')) as EngineState;
  if (state.ownerPid !== undefined && state.ownerPid !== process.pid && isAlive(state.ownerPid)) return;
  await Promise.all(
    pidsOf(state)
      .filter(isAlive)
      .map((pid) => stopProcess(pid, 10_000)),
  );
  rmSync(state.dir, { recursive: true, force: true });
  rmSync(LAST_STATE, { force: true });
}

async function attempt<T>(name: EngineName, state: EngineState, start: () => Promise<T>): Promise<T | undefined> {
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof EngineUnavailable)) throw error;
    state.unavailable[name] = error.message;
    return undefined;
  }
}

/** Starts the wanted engines together; answers how long it took. Called once per run by global-setup.js. */
export async function startTestEngines(): Promise<EngineState> {
  await stopLeftovers();
  const state: EngineState = { dir: mkdtempSync(path.join(tmpdir(), 'deltabroker-engines-')), ownerPid: process.pid, unavailable: {} };
  const want = wanted();
  for (const name of ENGINE_NAMES)
    if (!want.has(name)) state.unavailable[name] = `left out by DELTABROKER_TEST_ENGINES=${process.env.DELTABROKER_TEST_ENGINES}`;
  if (want.size > 0 && !(await mavenAvailable())) {
    for (const name of want) state.unavailable[name] = 'Apache Maven (mvn) is not installed, so the engine jars cannot be resolved';
    want.clear();
  }
  const [kafka, registry, opensearch, elasticsearch] = await Promise.all([
    want.has('kafka')
      ? attempt('kafka', state, () => startKafkaCluster({ dir: path.join(state.dir, 'kafka'), nodes: 3, scramUsers: [KAFKA_SCRAM_USER] }))
      : undefined,
    want.has('registry') ? attempt('registry', state, () => startSchemaRegistry({ dir: path.join(state.dir, 'registry') })) : undefined,
    want.has('opensearch') ? attempt('opensearch', state, () => startOpenSearch({ dir: path.join(state.dir, 'opensearch') })) : undefined,
    want.has('elasticsearch') ? attempt('elasticsearch', state, () => startElasticsearch({ dir: path.join(state.dir, 'elasticsearch') })) : undefined,
  ]);
  if (kafka) state.kafka = kafka;
  if (registry) state.registry = registry;
  if (opensearch) {
    state.opensearch = opensearch;
    process.env.TEST_OPENSEARCH_URL = opensearch.url;
  }
  if (elasticsearch) {
    state.elasticsearch = elasticsearch;
    process.env.TEST_ELASTICSEARCH_URL = elasticsearch.url;
  }
  saveEngineState(state);
  return state;
}

export async function stopTestEngines(): Promise<void> {
  const file = process.env[STATE_ENV];
  if (file === undefined || !existsSync(file)) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as EngineState;
  await Promise.all(pidsOf(state).map((pid) => stopProcess(pid)));
  rmSync(state.dir, { recursive: true, force: true });
  const last = existsSync(LAST_STATE) ? (JSON.parse(readFileSync(LAST_STATE, 'utf8')) as EngineState) : undefined;
  if (last?.dir === state.dir) rmSync(LAST_STATE, { force: true });
}

/** Records the state for the suites (and for the next run's clean-up); a suite that restarts a node saves it again. */
export function saveEngineState(state: EngineState): void {
  const file = path.join(state.dir, 'engines.json');
  writeFileSync(file, JSON.stringify(state, null, 2));
  // Only a run that started engines records them for the next run's clean-up (a run without engines must not hide them).
  if (pidsOf(state).length > 0) writeFileSync(LAST_STATE, JSON.stringify(state));
  process.env[STATE_ENV] = file;
}

/** The engines of this run, as global setup left them. */
export function realEngines(): EngineState {
  const file = process.env[STATE_ENV];
  if (file === undefined || !existsSync(file)) {
    return { dir: '', unavailable: Object.fromEntries(ENGINE_NAMES.map((n) => [n, 'no engines were started for this run (global setup did not run)'])) };
  }
  return JSON.parse(readFileSync(file, 'utf8')) as EngineState;
}

/**
 * `describe` when every named engine runs, else `describe.skip` with a line in the run's output saying why
 * (as the Docker suites do).
 */
export function describeWithEngines(names: EngineName[], title: string, body: (state: EngineState) => void): void {
  const state = realEngines();
  const missing = names.filter((name) => state[name] === undefined);
  if (missing.length === 0) {
    describe(title, () => body(state));
    return;
  }
  const why = missing.map((name) => `${name}: ${state.unavailable[name] ?? 'not started'}`).join('; ');
  console.warn(`SKIPPED ${title}: ${why}`);
  describe.skip(`${title} (skipped: ${why})`, () => {
    test('needs the real engines', () => undefined);
  });
}

/** The service's settings that point it at this run's real engines instead of its embedded ones. */
export function realEngineServiceEnv(state: EngineState = realEngines()): Record<string, string> {
  return {
    ...(state.kafka && { DELTABROKER_KAFKA_BROKERS: state.kafka.brokers.join(',') }),
    ...(state.registry && { DELTABROKER_SCHEMA_REGISTRY_URL: state.registry.url }),
  };
}

/**
 * What an operator's shell sets beside the service under test: in the e2e-real project the real engines' settings
 * (a CLI without them would start embedded engines of its own), nothing otherwise.
 */
export function serviceEnginesEnv(): Record<string, string> {
  return process.env.TEST_SERVICE_ENGINES === 'real' ? realEngineServiceEnv() : {};
}

/** `test`, or `test.skip` in the e2e-real project: for cases about the embedded broker itself. */
export function embeddedBrokerOnly(): jest.It {
  return process.env.TEST_SERVICE_ENGINES === 'real' ? test.skip : test;
}

/** Folders holding the write log's partition files: the embedded broker's in the data directory, or every Kafka node's. */
export function logFileDirs(serviceDataDir: string): string[] {
  if (process.env.TEST_SERVICE_ENGINES !== 'real') return [path.join(serviceDataDir, 'kafka')];
  return (realEngines().kafka?.nodes ?? []).map((node) => path.join(node.dir, 'data'));
}

/**
 * A topic loses every record while the service is stopped: on the embedded broker its files go (a disk restored
 * from an older backup); on Kafka it is deleted, as an operator's mistaken `kafka-topics --delete` would do.
 */
export async function loseTopic(serviceDataDir: string, topic: string): Promise<void> {
  if (process.env.TEST_SERVICE_ENGINES !== 'real') {
    rmSync(path.join(serviceDataDir, 'kafka', 'topics', topic), { recursive: true, force: true });
    return;
  }
  await deleteKafkaTopics(realEngines().kafka?.brokers ?? [], [topic]);
}

/**
 * On Kafka, a persistence topic deleted and created again while the service runs (a mistaken `kafka-topics --delete`,
 * then a tool that creates missing topics). The embedded broker refuses to delete a persistence topic: there a topic
 * comes back empty only by losing its files (loseTopic).
 */
export async function recreateKafkaTopic(topic: string): Promise<void> {
  await recreatePersistenceTopic(realEngines().kafka?.brokers ?? [], topic);
}
