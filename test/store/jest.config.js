// The store contract suite (`npm run test:store`): every query shape and write the service relies on,
// checked against MongoDB's documented semantics on whatever server MONGO_URL names. A config of its
// own, apart from the unit and integration projects: it needs MongoDB only, no Kafka, Redis or registry.
const base = require('../../jest.config.js');
const unit = base.projects.find((p) => p.displayName === 'unit');

module.exports = {
  rootDir: '../..',
  displayName: 'store',
  testMatch: ['<rootDir>/test/store/**/*.test.ts'],
  transform: unit.transform,
  transformIgnorePatterns: unit.transformIgnorePatterns,
  testEnvironment: 'node',
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/store/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/store/support/global-teardown.ts',
};
