/** The reliability suite (`npm run test:reliability`): crash, torn broker writes, bad input, load. Sizes: test/support/reliability/profile.ts. */
// The reliability suite runs on the embedded engines only: global setup starts no JVM engine for it.
process.env.DELTABROKER_TEST_ENGINES ??= 'off';

const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

module.exports = {
  testEnvironment: 'node',
  transform,
  moduleFileExtensions: ['ts', 'js', 'json'],
  // bin/with-node-lts.sh's copy of the checkout.
  modulePathIgnorePatterns: ['<rootDir>/.cache/'],
  testMatch: ['<rootDir>/test/reliability/**/*.reliability.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  // Each test sets its own (long) timeout; this one covers hooks.
  testTimeout: 30 * 60_000,
};
