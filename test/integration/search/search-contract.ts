/**
 * The search-port contract: one suite every adapter runs (PostgreSQL, Elasticsearch). Cases are
 * grouped by concern in the `contract-*.ts` files beside this one; each asserts hits, and ordering wherever
 * the request fixes it (an explicit sort, or a score gap every engine agrees on).
 */
import type { SearchIndex } from '../../../src/search/search-port';
import type { ContractContext, ContractFeatures, InstanceOptions } from './contract-context';
import { queryClauseCases } from './contract-queries';
import { erasureCases } from './contract-erasure';
import { indexChangeCases } from './contract-index-changes';
import { requestCases } from './contract-requests';
import { safetyCases } from './contract-safety';
import { shadowCases } from './contract-shadow';
import { writeCases } from './contract-writes';
import { PRODUCT_DOCS, PRODUCTS } from './search-fixtures';

export interface SearchBackend {
  index: SearchIndex;
  /** Another adapter instance on the same store or cluster. */
  openInstance(options: InstanceOptions): Promise<SearchIndex>;
  close(): Promise<void>;
}

export function describeSearchContract(name: string, open: () => Promise<SearchBackend>, features: ContractFeatures): void {
  describe(`search contract: ${name}`, () => {
    let backend: SearchBackend | undefined;
    const context: ContractContext = {
      get index() {
        if (backend === undefined) throw new Error('backend not open');
        return backend.index;
      },
      features,
      openInstance: (options = {}) => {
        if (backend === undefined) throw new Error('backend not open');
        return backend.openInstance(options);
      },
      search: (body, readableFields) => context.index.search(PRODUCTS.name, body, readableFields === undefined ? {} : { readableFields }),
    };

    beforeAll(async () => {
      backend = await open();
      await backend.index.ensureIndex(PRODUCTS);
      await backend.index.upsert(PRODUCTS.name, PRODUCT_DOCS);
    });

    afterAll(async () => {
      await backend?.close();
    });

    describe('query clauses', () => queryClauseCases(context));
    describe('sort, paging, _source, aggregations, totals', () => requestCases(context));
    describe('field hiding, refusals and injection attempts', () => safetyCases(context));
    describe('writes: versions, deletes, definition changes', () => writeCases(context));
    describe('shadow builds: create, fill, swap in, drop', () => shadowCases(context));
    describe('definition changes, concurrent instances, shards and long copies', () => indexChangeCases(context));
    describe("erasure: a data subject's fields masked", () => erasureCases(context));
  });
}
