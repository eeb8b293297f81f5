/**
 * The search-port contract: one suite every adapter runs (PostgreSQL, Elasticsearch). Cases are
 * grouped by concern in the `contract-*.ts` files beside this one; each asserts hits, and ordering wherever
 * the request fixes it (an explicit sort, or a score gap every engine agrees on).
 */
import type { SearchIndex, SearchResponse } from '../../../src/search/search-port';
import { queryClauseCases } from './contract-queries';
import { requestCases } from './contract-requests';
import { safetyCases } from './contract-safety';
import { shadowCases } from './contract-shadow';
import { writeCases } from './contract-writes';
import { PRODUCT_DOCS, PRODUCTS } from './search-fixtures';

export interface SearchBackend {
  index: SearchIndex;
  close(): Promise<void>;
}

export interface ContractFeatures {
  /**
   * The adapter accepts only the documented DSL subset and checks every field name against the index
   * definition (Postgres). Elasticsearch accepts the whole DSL, so those refusals do not apply to it.
   */
  subsetOnly: boolean;
}

export interface ContractContext {
  readonly index: SearchIndex;
  readonly features: ContractFeatures;
  search(body: unknown, readableFields?: ReadonlySet<string>): Promise<SearchResponse>;
}

export const idsOf = (response: SearchResponse): string[] => response.hits.hits.map((h) => h._id);
export const sortedIdsOf = (response: SearchResponse): string[] => idsOf(response).sort();

/** Expects a DeltabrokerError with this code, and the given details (field, rule). */
export async function expectRefusal(promise: Promise<unknown>, code: string, details: Record<string, unknown> = {}): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'DeltabrokerError', code, details: expect.objectContaining(details) });
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
  });
}
