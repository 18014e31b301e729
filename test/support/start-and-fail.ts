import { startApp } from '../../src/app';
import { loadConfig } from '../../src/shared/config';
import { createLogger } from '../../src/shared/logger';

// A process that starts the app from its environment and, when the start fails, only says so: it
// does not exit, so it ends by itself only if the failed start left nothing open
// (test/api/start-failure.test.ts).
const config = loadConfig(process.env);
startApp(config, createLogger('silent')).then(
  () => console.log('started'),
  (err: unknown) => console.log(`failed: ${(err as Error).message}`),
);
