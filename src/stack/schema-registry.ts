import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { resolveDistribution } from './engine-cache';
import { type EngineProcess, freePorts, httpAnswers, startProcess, stopProcess, waitUntilReady } from './engine-process';
import { EngineUnavailable } from './engine-unavailable';
import { findJava } from './java-runtime';

export const APICURIO_VERSION = '3.3.3';

export interface SchemaRegistryOptions {
  dir: string;
  heapMb?: number;
}

export interface SchemaRegistry {
  /** Base URL of the Confluent-compatible API, as the service's `DELTABROKER_SCHEMA_REGISTRY_URL`. */
  url: string;
  port: number;
  process: EngineProcess;
}

/**
 * Apicurio Registry 3 (its Quarkus app from Maven Central, classifier `all`), serving the Confluent API at
 * `/apis/ccompat/v7`. Storage is the app's default in-memory store: every instance of a test run shares this
 * one process, and a restart of the registry forgets its schemas (the service registers them again).
 */
export async function startSchemaRegistry(options: SchemaRegistryOptions): Promise<SchemaRegistry> {
  const java = findJava(21);
  if (java === undefined) throw new EngineUnavailable(`Apicurio Registry ${APICURIO_VERSION} needs Java 21 or newer and none is installed`);
  const app = await resolveDistribution(`apicurio-registry-${APICURIO_VERSION}`, {
    group: 'io.apicurio',
    artifact: 'apicurio-registry-app',
    version: APICURIO_VERSION,
    type: 'tar.gz',
    classifier: 'all',
  });
  mkdirSync(options.dir, { recursive: true });
  const [port, managementPort] = (await freePorts(2)) as [number, number];
  const heapMb = options.heapMb ?? 384;
  const engine = startProcess({
    name: 'apicurio-registry',
    command: java.java,
    args: [
      `-Xmx${heapMb}m`,
      `-Dquarkus.http.port=${port}`,
      '-Dquarkus.http.host=127.0.0.1',
      // Its management interface would otherwise listen on every address at 9000.
      `-Dquarkus.management.port=${managementPort}`,
      '-Dquarkus.management.host=127.0.0.1',
      '-Dquarkus.log.level=WARN',
      '-jar',
      path.join(app, 'quarkus-run.jar'),
    ],
    cwd: options.dir,
    env: { ...process.env, JAVA_HOME: java.home },
    logFile: path.join(options.dir, 'console.log'),
  });
  const url = `http://127.0.0.1:${port}/apis/ccompat/v7`;
  try {
    await waitUntilReady(engine, () => httpAnswers(`${url}/subjects`), 120_000);
  } catch (error) {
    await stopProcess(engine.pid);
    throw error;
  }
  return { url, port, process: engine };
}
