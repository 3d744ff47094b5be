// Unit tests (test/unit) need no server; integration tests (test/integration) share one real Temporal dev server
// started in globalSetup and one workflow bundle built there.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // jose (identity assertions) ships ES modules only; Node loads it with require(esm), jest's own loader does not.
    '/node_modules/jose/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 120_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summaryReporter.js'],
};
