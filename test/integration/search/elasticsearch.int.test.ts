/** The search contract against the Elasticsearch adapter on a real Elasticsearch 9 (src/stack/elasticsearch.ts). */
import { openElasticsearchSearchIndex } from '../../../src/search/elasticsearch/elasticsearch-search-index';
import { ELASTICSEARCH_VERSION, startElasticsearch } from '../../../src/stack/elasticsearch';
import { describeSearchContractOnEngine } from './engine-contract';

describeSearchContractOnEngine(
  { name: `Elasticsearch ${ELASTICSEARCH_VERSION}`, envVar: 'TEST_ELASTICSEARCH_URL', minJava: 21, start: startElasticsearch },
  'Elasticsearch',
  openElasticsearchSearchIndex,
);
