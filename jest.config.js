// Two projects: fast pure-logic unit tests, and integration tests against the real services
// that test/setup/global-setup.ts finds (or starts in Docker through testcontainers).
const transform = { '^.+\\.(ts|js)$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };
// openid-client and the two it stands on ship ES modules only, and @fastify/cookie imports the
// ES-only cookie package dynamically; node loads them, jest's loader does not (without its
// experimental ES module support), so they are compiled to CommonJS like the tests.
const transformIgnorePatterns = ['/node_modules/(?!(openid-client|oauth4webapi|jose|cookie|@fastify/cookie)/)'];

module.exports = {
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
