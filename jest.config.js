// Unit tests (test/unit) need no server; integration tests (test/integration) share one real Temporal dev server
// started in globalSetup and one workflow bundle built there.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // jose (identity assertions) ships ES modules only; Node loads it with require(esm), jest's own loader does not.
    '/node_modules/jose/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }],
    // So does the AI SDK (`ai` 7 and its @ai-sdk/* and @workflow/serde), which countersign/ai-sdk's tests build tools with.
    '/node_modules/(ai|@ai-sdk/[^/]+|@workflow/serde)/.+\\.js$': [
      'ts-jest',
      { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|ai|@ai-sdk/[^/]+|@workflow/serde)/)'],
  // The AI SDK imports zod's locale by its ES module file name; jest loads the CommonJS one beside it.
  moduleNameMapper: { '^zod/v4/locales/(.+)\\.js$': 'zod/v4/locales/$1.cjs' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 120_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summaryReporter.js'],
};
