// The SDK's own tests; test/live.test.ts needs a running service (LEAD_INTAKE_* variables, see README.md).
module.exports = {
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  // The sources import each other as ./x.js, as Node's ES modules need; jest reads the .ts files.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  testTimeout: 60000,
};
