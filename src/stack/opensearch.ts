/**
 * OpenSearch 2.19 as one node in a JVM of its own, from Maven Central's jars: OpenSearch publishes no launcher
 * there, so `java/OpenSearchNode.java` starts a node with the plugins the search adapter uses on its classpath.
 * The jars are resolved and the launcher compiled into the engine cache once; later starts take seconds.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { checkoutRoot, engineCacheDir, mavenAvailable, resolveClasspath, type MavenArtifact } from './engine-cache';
import { freePorts } from './engine-process';
import { EngineUnavailable } from './engine-unavailable';
import { findJava, type JavaRuntime } from './java-runtime';
import { launchSearchNode, type SearchEngineOptions, type StartedEngine } from './started-engine';

/** The last 2.19 release that runs on Java 17 (2.19.7's plugins are not all published). */
export const OPENSEARCH_VERSION = '2.19.6';
const LAUNCHER = 'OpenSearchNode';
// From the checkout, not __dirname: the compiled service (dist/) carries no .java files.
const LAUNCHER_SOURCE = path.join(checkoutRoot(), 'src', 'stack', 'java', `${LAUNCHER}.java`);

const plugin = (artifact: string): MavenArtifact => ({ group: 'org.opensearch.plugin', artifact, version: OPENSEARCH_VERSION });

/** Netty serves HTTP; the others give the analyzers, scripts, `_reindex`/`*_by_query` and field types a full distribution has. */
const ARTIFACTS: MavenArtifact[] = [
  { group: 'org.opensearch', artifact: 'opensearch', version: OPENSEARCH_VERSION },
  plugin('transport-netty4-client'),
  plugin('analysis-common'),
  plugin('lang-painless'),
  plugin('reindex-client'),
  plugin('mapper-extras-client'),
  // The server's pom leaves log4j-core out; without it the node cannot log at all.
  { group: 'org.apache.logging.log4j', artifact: 'log4j-core', version: '2.25.4' },
];

async function launcherClasspath(java: JavaRuntime): Promise<string> {
  const lib = await resolveClasspath(`opensearch-${OPENSEARCH_VERSION}`, ARTIFACTS);
  const classes = path.join(engineCacheDir(), `opensearch-${OPENSEARCH_VERSION}`, 'classes');
  if (!existsSync(path.join(classes, `${LAUNCHER}.class`))) {
    mkdirSync(classes, { recursive: true });
    const javac = path.join(java.home, 'bin', 'javac');
    if (!existsSync(javac)) throw new EngineUnavailable(`OpenSearch: no javac beside ${java.java} to compile its launcher`);
    await promisify(execFile)(javac, ['-d', classes, '-cp', `${lib}/*`, LAUNCHER_SOURCE]);
  }
  return `${classes}${path.delimiter}${lib}/*`;
}

export async function startOpenSearch(options: SearchEngineOptions): Promise<StartedEngine> {
  const java = findJava(17);
  if (java === undefined) throw new EngineUnavailable('OpenSearch needs Java 17 or newer; none is installed');
  if (!(await mavenAvailable())) throw new EngineUnavailable('OpenSearch is resolved with Maven (mvn); it is not installed');
  const classpath = await launcherClasspath(java);
  const home = path.resolve(options.dir);
  mkdirSync(home, { recursive: true });
  const [httpPort, transportPort] = (await freePorts(2)) as [number, number];
  return launchSearchNode(
    {
      name: `opensearch-${OPENSEARCH_VERSION}`,
      java,
      home,
      httpPort,
      args: [`-Dos.home=${home}`, `-Dos.http.port=${httpPort}`, `-Dos.transport.port=${transportPort}`, '-cp', classpath, LAUNCHER],
    },
    options,
  );
}
