/** Test level is in the file name: *.unit.test.ts, *.int.test.ts, *.e2e.test.ts. */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
// .cache/ holds bin/with-node-lts.sh's copy of the checkout: a second package named deltabroker, not ours to load.
const common = { testEnvironment: 'node', transform, moduleFileExtensions: ['ts', 'js', 'json'], modulePathIgnorePatterns: ['<rootDir>/.cache/'] };

/** e2e suites that also run with the service on the real engines: none of them reaches into embedded files. */
const REAL_ENGINE_SUITES = [
  'storage-writes',
  'storage-reads',
  'subject-erasure',
  'two-datacenters',
  'tenant-isolation',
  'kafka-producers',
  'rejections',
  'replay',
  'topic-identity',
];

module.exports = {
  // Per-project timeouts are not read by jest 30; suites that need longer say so per test.
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.unit.test.ts', '<rootDir>/src/**/*.unit.test.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/test/**/*.int.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.test.ts'] },
    // The same suites with the service on a Kafka 4 cluster and a real registry (test/support/on-real-engines.ts).
    {
      ...common,
      displayName: 'e2e-real',
      testMatch: REAL_ENGINE_SUITES.map((name) => `<rootDir>/test/e2e/${name}.e2e.test.ts`),
      setupFilesAfterEnv: ['<rootDir>/test/support/on-real-engines.ts'],
    },
  ],
};
