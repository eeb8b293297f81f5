import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** A Java runtime on this machine: the `java` binary, its home (for JAVA_HOME) and its major version. */
export interface JavaRuntime {
  java: string;
  home: string;
  major: number;
}

const JVM_ROOT = '/usr/lib/jvm';

function majorOf(java: string): number | undefined {
  const probe = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(probe.stderr);
  if (!match) return undefined;
  const first = Number(match[1]);
  // Java 8 and older say "1.8"; every engine here needs 17 or newer, so that only has to be read right.
  return first === 1 ? Number(match[2]) : first;
}

function candidates(): string[] {
  const found: string[] = [];
  if (process.env.JAVA_HOME) found.push(path.join(process.env.JAVA_HOME, 'bin', 'java'));
  if (existsSync(JVM_ROOT)) {
    for (const name of readdirSync(JVM_ROOT).sort()) found.push(path.join(JVM_ROOT, name, 'bin', 'java'));
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) found.push(path.join(dir, 'java'));
  return [...new Set(found)].filter((java) => existsSync(java));
}

/**
 * The runtime with the lowest major version that is at least `minMajor` (Kafka and OpenSearch run on 17;
 * Elasticsearch 9 and Apicurio Registry 3 need 21 or newer). Undefined when none is installed.
 */
export function findJava(minMajor: number): JavaRuntime | undefined {
  let best: JavaRuntime | undefined;
  for (const java of candidates()) {
    const major = majorOf(java);
    if (major === undefined || major < minMajor) continue;
    if (best === undefined || major < best.major) best = { java, home: path.dirname(path.dirname(java)), major };
  }
  return best;
}
