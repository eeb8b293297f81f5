/**
 * Elasticsearch 9 as one node in a JVM of its own, from Maven Central's jars. Elastic publishes no 9.x test
 * distribution there (`integ-test-zip` stops at 8.19.x), only the server (`org.elasticsearch:elasticsearch`) and,
 * of the modules, `transport-netty4` (HTTP) and `x-pack-core`; painless, reindex, analysis-common and rest-root
 * (`GET /`) are not published, so the node runs without them and the adapter needs none of them.
 * `java/ElasticsearchNode.java` starts the node with the server's jars on the module path, as the real
 * distribution does, and transport-netty4 as a module under `<dir>/modules`. Needs Java 21 or newer.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { checkoutRoot, engineCacheDir, mavenAvailable, resolveClasspath } from './engine-cache';
import { freePorts } from './engine-process';
import { EngineUnavailable } from './engine-unavailable';
import { findJava, type JavaRuntime } from './java-runtime';
import { launchSearchNode, type SearchEngineOptions, type StartedEngine } from './started-engine';

/** The newest 9.x whose server and transport-netty4 are both on Maven Central (9.3.x and 9.4.x have no netty4 module there). */
export const ELASTICSEARCH_VERSION = '9.5.3';
const LAUNCHER = 'ElasticsearchNode';
// From the checkout, not __dirname: the compiled service (dist/) carries no .java files.
const LAUNCHER_SOURCE = path.join(checkoutRoot(), 'src', 'stack', 'java', `${LAUNCHER}.java`);
const NETTY_MODULE = 'transport-netty4';

interface Layout {
  serverLib: string;
  nettyLib: string;
  classes: string;
}

async function resolveLayout(java: JavaRuntime): Promise<Layout> {
  const serverLib = await resolveClasspath(`elasticsearch-${ELASTICSEARCH_VERSION}-server`, [
    { group: 'org.elasticsearch', artifact: 'elasticsearch', version: ELASTICSEARCH_VERSION },
  ]);
  const nettyLib = await resolveClasspath(`elasticsearch-${ELASTICSEARCH_VERSION}-${NETTY_MODULE}`, [
    { group: 'org.elasticsearch.plugin', artifact: NETTY_MODULE, version: ELASTICSEARCH_VERSION },
  ]);
  const classes = path.join(engineCacheDir(), `elasticsearch-${ELASTICSEARCH_VERSION}-server`, 'classes');
  if (!existsSync(path.join(classes, `${LAUNCHER}.class`))) {
    mkdirSync(classes, { recursive: true });
    const javac = path.join(java.home, 'bin', 'javac');
    if (!existsSync(javac)) throw new EngineUnavailable(`Elasticsearch: no javac beside ${java.java} to compile its launcher`);
    await promisify(execFile)(javac, ['-d', classes, '--module-path', serverLib, '--add-modules', 'ALL-MODULE-PATH', LAUNCHER_SOURCE]);
  }
  return { serverLib, nettyLib, classes };
}

/**
 * `<home>/modules/transport-netty4`: the module's jar and the dependencies the server does not carry (two copies
 * of a package would be refused), with its descriptor and entitlement policy taken out of the jar, as a
 * distribution lays a module out.
 */
async function installNettyModule(layout: Layout, home: string): Promise<void> {
  const dir = path.join(home, 'modules', NETTY_MODULE);
  if (existsSync(path.join(dir, 'plugin-descriptor.properties'))) return;
  mkdirSync(dir, { recursive: true });
  const serverJars = new Set(readdirSync(layout.serverLib));
  for (const jar of readdirSync(layout.nettyLib)) if (!serverJars.has(jar)) cpSync(path.join(layout.nettyLib, jar), path.join(dir, jar));
  const moduleJar = path.join(layout.nettyLib, `${NETTY_MODULE}-${ELASTICSEARCH_VERSION}.jar`);
  await promisify(execFile)('unzip', ['-o', '-q', '-j', moduleJar, `META-INF/es-plugins/${NETTY_MODULE}/*`, '-d', dir]);
}

export async function startElasticsearch(options: SearchEngineOptions): Promise<StartedEngine> {
  const java = findJava(21);
  if (java === undefined) throw new EngineUnavailable('Elasticsearch 9 needs Java 21 or newer; none is installed');
  if (!(await mavenAvailable())) throw new EngineUnavailable('Elasticsearch is resolved with Maven (mvn); it is not installed');
  const layout = await resolveLayout(java);
  const home = path.resolve(options.dir);
  mkdirSync(home, { recursive: true });
  await installNettyModule(layout, home);
  const [httpPort, transportPort] = (await freePorts(2)) as [number, number];
  return launchSearchNode(
    {
      name: `elasticsearch-${ELASTICSEARCH_VERSION}`,
      java,
      home,
      httpPort,
      args: [
        '--module-path',
        layout.serverLib,
        '--add-modules',
        'ALL-MODULE-PATH',
        '-cp',
        layout.classes,
        `-Des.home=${home}`,
        `-Des.http.port=${httpPort}`,
        `-Des.transport.port=${transportPort}`,
        LAUNCHER,
      ],
      env: { ...process.env, JAVA_HOME: java.home, ES_JAVA_HOME: java.home },
    },
    options,
  );
}
