// The store kind on its own (`npm run test:store`): the store contract suite (every query shape and write
// the service relies on, checked against MongoDB's documented semantics) and the tests of the service's
// store code, on whatever server MONGO_URL names. It needs MongoDB only, no Kafka, Redis or registry, so
// it runs where only a store is at hand (docker-compose.store.yml, or an operator's own server).
const base = require('../../jest.config.js');

module.exports = { ...base.projects.find((p) => p.displayName === 'store'), rootDir: '../..' };
