/**
 * The search contract on a real engine from Maven jars: the run's engine (its URL in the spec's environment
 * variable) or one started for the suite. Skipped, saying why, where no suitable Java runtime or Maven is installed.
 */
import type { SearchIndex } from '../../../src/search/search-port';
import type { ElasticFamilyOptions } from '../../../src/search/elastic-family/elastic-family-search-index';
import { searchEngine, type SearchEngineSpec } from '../../support/search-engines';
import type { InstanceOptions } from './contract-context';
import { describeSearchContract } from './search-contract';

export type OpenAdapter = (connection: { node: string; requestTimeoutMs?: number }, options: ElasticFamilyOptions) => Promise<SearchIndex>;

export function describeSearchContractOnEngine(spec: SearchEngineSpec, adapter: string, openAdapter: OpenAdapter): void {
  const availability = searchEngine(spec);
  if (!availability.ok) {
    console.warn(`SKIPPED ${adapter} suite: ${availability.why}. It runs the search contract against ${spec.name} from Maven jars.`);
    describe.skip(`search contract: ${spec.name} (skipped: ${availability.why})`, () => {
      test(`needs Java ${spec.minJava}+ and Maven`, () => undefined);
    });
    return;
  }
  const { engine } = availability;
  /** Indices of this run only, should the engine be one a developer keeps running between runs. */
  const runPrefix = `contract_${Date.now().toString(36)}_`;
  jest.setTimeout(300_000);
  afterAll(() => engine.stop());
  describeSearchContract(
    `${adapter} adapter on ${spec.name}`,
    async () => {
      const url = await engine.url();
      const open = (options: InstanceOptions = {}) =>
        openAdapter(
          { node: url, ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }) },
          { indexPrefix: runPrefix, settings: { number_of_replicas: 0, ...(options.shards === undefined ? {} : { number_of_shards: options.shards }) } },
        );
      const index = await open();
      return { index, openInstance: open, close: () => index.close() };
    },
    { subsetOnly: false },
  );

  test(`${adapter} adapter: a second close answers, as the first did (a service stopped twice waits on it)`, async () => {
    const index = await openAdapter({ node: await engine.url() }, { indexPrefix: runPrefix });
    await index.close();
    const second = await Promise.race([index.close().then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 5_000, 'no answer'))]);
    expect(second).toBe('closed');
  });
}
