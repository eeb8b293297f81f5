/**
 * Setup of the `e2e-real` project: the same e2e suites as `e2e`, with every service they start pointed at this
 * run's Kafka 4 cluster and schema registry (startTestService reads TEST_SERVICE_ENGINES); search stays on PostgreSQL,
 * whose subset and tables these suites assert (the search contract covers the engines). The suites share the cluster
 * one after another, so before each file every topic and consumer group of the last is deleted.
 * Where the engines do not run, every test of the file is skipped, saying why.
 */
import { realEngines } from './engines';
import { emptyKafka } from './kafka-reset';

const engines = realEngines();
const missing = (['kafka', 'registry'] as const).filter((name) => engines[name] === undefined);

if (missing.length > 0) {
  const why = missing.map((name) => `${name}: ${engines.unavailable[name] ?? 'not started'}`).join('; ');
  console.warn(`SKIPPED ${expect.getState().testPath ?? 'suite'} on real engines: ${why}`);
  // Every test this file declares after this setup is a skipped one.
  Object.assign(globalThis, { test: test.skip, it: it.skip });
} else {
  process.env.TEST_SERVICE_ENGINES = 'real';
  beforeAll(() => emptyKafka(engines.kafka?.brokers ?? []), 60_000);
}
