/**
 * A real search engine for a suite: the one the test run started (its URL in TEST_OPENSEARCH_URL or
 * TEST_ELASTICSEARCH_URL), else one this suite starts in `beforeAll` and stops in `afterAll`. Whether the engine
 * can run here (a Java runtime, Maven) is decided while jest collects the suite, so a suite that cannot run is
 * skipped at once and says why.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopProcess } from '../../src/stack/engine-process';
import { findJava } from '../../src/stack/java-runtime';
import type { SearchEngineOptions, StartedEngine } from '../../src/stack/started-engine';

export interface SearchEngineSpec {
  name: string;
  envVar: 'TEST_OPENSEARCH_URL' | 'TEST_ELASTICSEARCH_URL';
  minJava: number;
  start(options: SearchEngineOptions): Promise<StartedEngine>;
}

export interface SearchEngineHandle {
  /** The engine's URL, starting it on first use when the run did not. */
  url(): Promise<string>;
  /** Stops the engine if this suite started it. */
  stop(): Promise<void>;
}

export type SearchEngineAvailability = { ok: true; engine: SearchEngineHandle } | { ok: false; why: string };

function unavailableReason(spec: SearchEngineSpec): string | undefined {
  if (findJava(spec.minJava) === undefined) return `${spec.name} needs Java ${spec.minJava} or newer and none is installed`;
  if (spawnSync('mvn', ['-v'], { timeout: 30_000 }).status !== 0) return `${spec.name} is resolved with Maven and mvn does not run`;
  return undefined;
}

export function searchEngine(spec: SearchEngineSpec): SearchEngineAvailability {
  const given = process.env[spec.envVar];
  if (given !== undefined && given !== '') return { ok: true, engine: { url: () => Promise.resolve(given), stop: () => Promise.resolve() } };
  const why = unavailableReason(spec);
  if (why !== undefined) return { ok: false, why };
  let started: { engine: StartedEngine; dir: string } | undefined;
  return {
    ok: true,
    engine: {
      async url() {
        if (started === undefined) {
          const dir = mkdtempSync(path.join(os.tmpdir(), `deltabroker-${spec.envVar.toLowerCase()}-`));
          started = { engine: await spec.start({ dir }), dir };
        }
        return started.engine.url;
      },
      async stop() {
        if (started === undefined) return;
        await stopProcess(started.engine.process.pid);
        rmSync(started.dir, { recursive: true, force: true });
        started = undefined;
      },
    },
  };
}
