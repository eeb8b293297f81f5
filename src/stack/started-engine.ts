import path from 'node:path';
import { httpAnswers, startProcess, stopProcess, waitUntilReady, type EngineProcess } from './engine-process';
import type { JavaRuntime } from './java-runtime';

/** Where a search engine keeps its data, logs and configuration, and how big its heap is. */
export interface SearchEngineOptions {
  /** A working folder of the engine's own (created if missing). */
  dir: string;
  /** Heap size in MiB; 512 by default, enough for test indices. */
  heapMb?: number;
}

/** A search engine serving HTTP on loopback. Stop it with `stopProcess(process.pid)`. */
export interface StartedEngine {
  url: string;
  process: EngineProcess;
}

export const DEFAULT_HEAP_MB = 512;
/** First start of a JVM engine on a busy 2-core host: index creation of system indices included. */
export const ENGINE_START_TIMEOUT_MS = 180_000;

/** How one search node's JVM is started: everything but the heap, which comes from SearchEngineOptions. */
export interface SearchNodeLaunch {
  name: string;
  java: JavaRuntime;
  /** The node's home (data, logs, console.log). */
  home: string;
  httpPort: number;
  /** JVM arguments after the heap and collector flags: classpath or module path, system properties, main class. */
  args: string[];
  env?: NodeJS.ProcessEnv;
}

/** Starts a search node and answers once its cluster is green; a node that never gets there is stopped. */
export async function launchSearchNode(launch: SearchNodeLaunch, options: SearchEngineOptions): Promise<StartedEngine> {
  const heap = options.heapMb ?? DEFAULT_HEAP_MB;
  const engine = startProcess({
    name: launch.name,
    command: launch.java.java,
    args: [`-Xms${heap}m`, `-Xmx${heap}m`, '-XX:+UseSerialGC', ...launch.args],
    cwd: launch.home,
    ...(launch.env && { env: launch.env }),
    logFile: path.join(launch.home, 'console.log'),
  });
  const url = `http://127.0.0.1:${launch.httpPort}`;
  try {
    await waitUntilReady(engine, () => httpAnswers(`${url}/_cluster/health?wait_for_status=green&timeout=1s`), ENGINE_START_TIMEOUT_MS);
  } catch (error) {
    await stopProcess(engine.pid, 5_000);
    throw error;
  }
  return { url, process: engine };
}
