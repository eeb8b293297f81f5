/** The search contract against the OpenSearch adapter on a real OpenSearch 2.19 (src/stack/opensearch.ts). */
import { openOpenSearchSearchIndex } from '../../../src/search/opensearch/opensearch-search-index';
import { OPENSEARCH_VERSION, startOpenSearch } from '../../../src/stack/opensearch';
import { describeSearchContractOnEngine } from './engine-contract';

describeSearchContractOnEngine(
  { name: `OpenSearch ${OPENSEARCH_VERSION}`, envVar: 'TEST_OPENSEARCH_URL', minJava: 17, start: startOpenSearch },
  'OpenSearch',
  openOpenSearchSearchIndex,
);
