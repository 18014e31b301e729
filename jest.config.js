// Two projects: fast pure-logic unit tests, and integration tests against the real services
// that test/setup/global-setup.ts finds (or starts in Docker through testcontainers).
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };

module.exports = {
  testTimeout: 60000,
  projects: [
    { displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], transform, testEnvironment: 'node' },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
