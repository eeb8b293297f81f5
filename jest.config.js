/** Test level is in the file name: *.unit.test.ts, *.int.test.ts, *.e2e.test.ts. */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const common = { testEnvironment: 'node', transform, moduleFileExtensions: ['ts', 'js', 'json'] };

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
  ],
};
