/**
 * The search contract against a real Elasticsearch in a container (testcontainers). Runs where a Docker
 * engine answers; elsewhere it is skipped at once, saying why in the run's output.
 */
import { openElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-search-index';
import type { InstanceOptions } from './contract-context';
import { describeSearchContract, type SearchBackend } from './search-contract';
import { dockerAnswers } from '../../support/docker';

/** Client 9.x speaks compatible-with=9, so the server must be 9.x too. */
const ELASTICSEARCH_IMAGE = process.env.DELTABROKER_ELASTICSEARCH_IMAGE ?? 'docker.elastic.co/elasticsearch/elasticsearch:9.0.0';

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
  const node = `http://${container.getHost()}:${container.getMappedPort(9200)}`;
  const open = (options: InstanceOptions) =>
    openElasticsearchSearchIndex(
      { node, ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }) },
      { indexPrefix: 'contract_', ...(options.shards === undefined ? {} : { settings: { number_of_shards: options.shards } }) },
    );
  const index = await open({});
  return {
    index,
    openInstance: open,
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
