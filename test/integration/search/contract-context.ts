/** What every group of contract cases gets: the index under test, its features, and assertion helpers. */
import type { SearchIndex, SearchResponse } from '../../../src/search/search-port';

export interface ContractFeatures {
  /**
   * The adapter accepts only the documented DSL subset and checks every field name against the index
   * definition (Postgres). Elasticsearch accepts the whole DSL, so those refusals do not apply to it.
   */
  subsetOnly: boolean;
}

/** A second adapter instance on the same store or cluster (another service instance), with engine settings. */
export interface InstanceOptions {
  /** Primary shards of the indices it creates (engines only; PostgreSQL has none). */
  shards?: number;
  /** The client's request timeout (engines only). */
  requestTimeoutMs?: number;
}

export interface ContractContext {
  readonly index: SearchIndex;
  /** Opens another instance; the case closes it. */
  openInstance(options?: InstanceOptions): Promise<SearchIndex>;
  readonly features: ContractFeatures;
  search(body: unknown, readableFields?: ReadonlySet<string>): Promise<SearchResponse>;
}

export const idsOf = (response: SearchResponse): string[] => response.hits.hits.map((h) => h._id);
export const sortedIdsOf = (response: SearchResponse): string[] => idsOf(response).sort();

/** Expects a DeltabrokerError with this code, and the given details (field, rule). */
export async function expectRefusal(promise: Promise<unknown>, code: string, details: Record<string, unknown> = {}): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'DeltabrokerError', code, details: expect.objectContaining(details) });
}
