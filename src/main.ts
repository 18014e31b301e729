import { startApp } from './app';
import { ConfigError, loadConfig, loadSetupConfig } from './shared/config';
import { runSetup } from './shared/kafka/provision';
import { createLogger } from './shared/logger';

// One entry point for every role: `node dist/main.js [all|ingress|processor|dispatcher[,...]]`
// (or ROLE=...). Default: all roles in one process, as on a laptop. `node dist/main.js setup`
// only creates the topics and registers the schemas, then exits (the chart's pre-install Job).
async function main(): Promise<void> {
  const roleArg = process.argv[2];
  if (roleArg === 'setup') {
    const config = readConfig(() => loadSetupConfig(process.env));
    await runSetup(config, createLogger(config.logLevel));
    return;
  }
  const config = readConfig(() => loadConfig(roleArg ? { ...process.env, ROLE: roleArg } : process.env));
  const logger = createLogger(config.logLevel);
  const app = await startApp(config, logger);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    app.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean stop');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

// A bad variable is an operator's mistake, not a crash: print its message alone and exit 1.
function readConfig<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
