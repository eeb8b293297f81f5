/**
 * The search port and its engine-free parts. Adapters are not re-exported: the composition root imports
 * `./postgres/postgres-search-index`, `./elasticsearch/elasticsearch-search-index` or
 * `./opensearch/opensearch-search-index`, so code that knows only the port never loads an adapter or a client.
 */
export * from './search-port';
export { documentRefusal, isDocumentRefusal, validateIndexDefinition, validateDocuments } from './index-definition';
