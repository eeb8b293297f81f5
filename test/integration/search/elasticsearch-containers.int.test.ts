/**
 * The search contract against a real Elasticsearch in a container (testcontainers). Runs where a Docker
 * engine answers; elsewhere it is skipped at once, saying why in the run's output.
 */
import { spawnSync } from 'node:child_process';
import { openElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-search-index';
import { describeSearchContract, type SearchBackend } from './search-contract';

/** Client 9.x speaks compatible-with=9, so the server must be 9.x too. */
const ELASTICSEARCH_IMAGE = process.env.DELTABROKER_ELASTICSEARCH_IMAGE ?? 'docker.elastic.co/elasticsearch/elasticsearch:9.0.0';

/**
 * Jest collects suites synchronously, so whether Docker answers (`GET /_ping`) is decided in a child process
 * with a hard 3 s limit: a machine without Docker skips at once instead of waiting on testcontainers.
 */
function dockerAnswers(): { ok: true } | { ok: false; why: string } {
  const probe = `
    const http = require('node:http');
    const host = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
    const target = host.startsWith('unix://')
      ? { socketPath: host.slice(7), path: '/_ping' }
      : (() => { const u = new URL(host.replace(/^tcp:/, 'http:')); return { host: u.hostname, port: u.port || 2375, path: '/_ping' }; })();
    const req = http.get({ ...target, timeout: 2000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 2));
    req.on('timeout', () => { console.error('no answer from ' + host); process.exit(3); });
    req.on('error', (e) => { console.error(e.code + ' at ' + host); process.exit(4); });
  `;
  const result = spawnSync(process.execPath, ['-e', probe], { timeout: 3000, encoding: 'utf8' });
  if (result.status === 0) return { ok: true };
  const why = result.error ? result.error.message : (result.stderr || `probe exited ${result.status}`).trim();
  return { ok: false, why: `no Docker engine answers (${why})` };
}

async function startElasticsearch(): Promise<SearchBackend> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(ELASTICSEARCH_IMAGE)
    .withEnvironment({
      'discovery.type': 'single-node',
      'xpack.security.enabled': 'false',
      ES_JAVA_OPTS: '-Xms512m -Xmx512m',
    })
    .withExposedPorts(9200)
    .withWaitStrategy(Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=60s', 9200).forStatusCode(200))
    .withStartupTimeout(180_000)
    .start();
  const index = await openElasticsearchSearchIndex({ node: `http://${container.getHost()}:${container.getMappedPort(9200)}` }, { indexPrefix: 'contract_' });
  return {
    index,
    async close() {
      await index.close();
      await container.stop();
    },
  };
}

const docker = dockerAnswers();

if (docker.ok) {
  jest.setTimeout(180_000);
  describeSearchContract(`Elasticsearch adapter on ${ELASTICSEARCH_IMAGE} (testcontainers)`, startElasticsearch, { subsetOnly: false });
} else {
  console.warn(`SKIPPED elasticsearch-containers suite: ${docker.why}. It runs the search contract against ${ELASTICSEARCH_IMAGE} where Docker is available.`);
  describe.skip(`search contract: Elasticsearch in a container (skipped: ${docker.why})`, () => {
    test('needs a Docker engine', () => undefined);
  });
}
