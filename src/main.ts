import { startApp } from './app';
import { ConfigError, loadConfig } from './shared/config';
import { createLogger } from './shared/logger';

// One entry point for every role: `node dist/main.js [all|ingress|processor|dispatcher[,...]]`
// (or ROLE=...). Default: all roles in one process, as on a laptop.
async function main(): Promise<void> {
  const roleArg = process.argv[2];
  let config;
  try {
    config = loadConfig(roleArg ? { ...process.env, ROLE: roleArg } : process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const app = await startApp(config, logger);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    app.stop().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'unclean stop');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
