// One project per kind of test, each runnable alone (`npx jest --selectProjects drills`; scripts/test.sh
// runs them one after another, fastest to fail first):
//   unit     pure logic, no server
//   store    test/store: the store contract suite and the tests of the service's store code, MongoDB only
//   api      the roles over real Kafka, MongoDB, Redis and the registry, through their HTTP APIs and topics
//   browser  the manager console and the partner portal driven in Chromium
//   fuzz     generated hostile input through the real roles
//   drills   faults under load: processes killed, frozen, cut off; servers restarted; brokers failing over
// Every kind but unit and store finds the real servers through test/setup/global-setup.ts (or starts them
// in Docker through testcontainers).
const transform = { '^.+\\.(ts|js)$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };
// openid-client and the two it stands on ship ES modules only, and @fastify/cookie imports the
// ES-only cookie package dynamically; node loads them, jest's loader does not (without its
// experimental ES module support), so they are compiled to CommonJS like the tests.
const transformIgnorePatterns = ['/node_modules/(?!(openid-client|oauth4webapi|jose|cookie|@fastify/cookie)/)'];
const kind = (displayName, more = {}) => ({
  displayName,
  testMatch: [`<rootDir>/test/${displayName}/**/*.test.ts`],
  transform,
  transformIgnorePatterns,
  testEnvironment: 'node',
  ...more,
});
const servers = {
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
};

module.exports = {
  testTimeout: 60000,
  // Longest first, where jest has not timed the files itself (test/setup/sequencer.js).
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  projects: [
    kind('unit'),
    kind('store', {
      testTimeout: 30000,
      globalSetup: '<rootDir>/test/store/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/store/support/global-teardown.ts',
    }),
    kind('api', servers),
    kind('browser', servers),
    kind('fuzz', servers),
    kind('drills', servers),
  ],
};
