// Typed configuration, read once from the environment at start, validated, then frozen.
// A bad or missing variable throws ConfigError naming it; main.ts prints it and exits 1.
// One module per part of the service; this one assembles them.
import { ConfigError } from '../errors';
import { readAlerts, type AlertsConfig } from './alerts';
import { readAccounts, type AccountsConfig, type SignInLimits } from './accounts';
import {
  readCallbacks,
  readEndpoints,
  readReplay,
  readRetryDelays,
  type CallbackConfig,
  type EndpointConfig,
  type ReplayConfig,
} from './callbacks';
import { EnvReader, type Env } from './env-reader';
import { deepFreeze } from './freeze';
import { readBlockedCountries, readIntake, readRules, type IntakeConfig, type RulesConfig } from './intake';
import { readDispatcherFetch, readSetup, type FetchBytes, type SetupConfig } from './kafka';
import { readMail, type MailConfig } from './mail';
import { parseRoles, type Role } from './roles';
import { readCrypto, readManagerTokens, readSessionSecret, type CryptoConfig } from './secrets';
import { readServices, type HttpConfig, type MongoConfig, type RedisConfig } from './services';

export { ConfigError };
export { ROLES, type Role } from './roles';
export type { FetchBytes, KafkaConfig, SetupConfig } from './kafka';
export type { AccountsConfig, CallbackConfig, CryptoConfig, EndpointConfig, IntakeConfig, ReplayConfig, RulesConfig };
export type { AlertsConfig, HttpConfig, MailConfig, MongoConfig, RedisConfig, SignInLimits };

export interface Config extends SetupConfig {
  readonly roles: readonly Role[];
  readonly serviceName: string;
  readonly http: HttpConfig;
  readonly mongo: MongoConfig;
  readonly redis: RedisConfig;
  readonly crypto: CryptoConfig;
  readonly managerTokens: readonly string[];
  // How long a manager request waits for the dispatcher to confirm a command (retry, replay).
  readonly managerCommandTimeoutMs: number;
  readonly accounts: AccountsConfig;
  // Null: no relay configured, mail is off.
  readonly mail: MailConfig | null;
  readonly alerts: AlertsConfig;
  readonly intake: IntakeConfig;
  readonly rules: RulesConfig;
  readonly callbacks: CallbackConfig;
  readonly endpoints: EndpointConfig;
  readonly dispatcherFetch: FetchBytes;
  readonly replay: ReplayConfig;
}

// The secrets and lists are checked first, then every other variable in the order of the object.
export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);
  const roles = parseRoles(r.string('ROLE', 'all'));
  const crypto = readCrypto(r);
  const sessionSecret = readSessionSecret(r, crypto.hashKey);
  const managerTokens = readManagerTokens(r, roles);
  const retryDelaysS = readRetryDelays(r);
  const blockedCountries = readBlockedCountries(r);
  const accounts = readAccounts(r, env, sessionSecret);

  const config: Config = {
    ...readSetup(r),
    roles,
    serviceName: r.string('SERVICE_NAME', 'LeadIntake'),
    ...readServices(r),
    crypto,
    managerTokens,
    managerCommandTimeoutMs: r.int('MANAGER_COMMAND_TIMEOUT_MS', 15000, 100, 120000),
    accounts,
    mail: readMail(r, env, accounts.consoleUrl),
    alerts: readAlerts(r),
    intake: readIntake(r),
    rules: readRules(r, blockedCountries),
    callbacks: readCallbacks(r, retryDelaysS),
    endpoints: readEndpoints(r),
    dispatcherFetch: readDispatcherFetch(r),
    replay: readReplay(r),
  };
  return deepFreeze(config);
}

export function loadSetupConfig(env: Env = process.env): SetupConfig {
  return deepFreeze(readSetup(new EnvReader(env)));
}
