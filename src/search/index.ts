/**
 * The search port and its engine-free parts, plus the Postgres adapter (which needs only the SqlClient port).
 * The Elasticsearch adapter is deliberately not re-exported: import it from `./elasticsearch/elasticsearch-search-index`
 * where it is wanted, so that importing the port never loads `@elastic/elasticsearch`.
 */
export * from './search-port';
export { validateIndexDefinition, validateDocuments } from './index-definition';
export { createPostgresSearchIndex, DEFAULT_SEARCH_SCHEMA, type PostgresSearchOptions } from './postgres/postgres-search-index';
