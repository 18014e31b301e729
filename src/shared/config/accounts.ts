import { parseSsoConfig, type SsoConfig } from './sso-config';
import { ConfigError } from '../errors';
import type { Env, EnvReader } from './env-reader';

// People signing in to the console (src/identity, src/manager/identity): sessions and single sign-on.
export interface AccountsConfig {
  // Signs the session cookie (SESSION_SECRET; else derived from HASH_KEY).
  readonly sessionSecret: string;
  readonly idleTimeoutS: number;
  readonly absoluteTimeoutS: number;
  // Where the console is reached, to show one-time links whole (else the console builds them).
  readonly consoleUrl: string | null;
  readonly sso: SsoConfig | null;
  // Contacts revealed for one agent in any 60 minutes (by the agent, its supervisor or its CRM).
  readonly contactRevealsPerHour: number;
  readonly signIn: SignInLimits;
  // Unknown bearer tokens from one client network in 15 minutes before every bearer token from it is refused.
  readonly tokenFailuresPerAddress: number;
}

// How failed sign-ins are counted and what they hold back (src/identity/throttle-policy.ts).
export interface SignInLimits {
  // Failures for one account from one client network before that network is locked out of it.
  readonly perSource: number;
  // Failures from one client network, whatever the accounts, before it is locked out of all.
  readonly perAddress: number;
  // Failures with one known device cookie before that device is locked out of its account.
  readonly perDevice: number;
  // Failures for one account, from anywhere, after which a browser it does not know waits between attempts.
  readonly slowAfter: number;
  readonly maxDelayS: number;
  readonly windowS: number;
  // Wrong second factors one pending sign-in takes before it must start again from the password.
  readonly secondFactorTries: number;
  // How long a browser's device cookie lasts after its last completed sign-in.
  readonly deviceDays: number;
}

function readSignIn(r: EnvReader): SignInLimits {
  const limits = {
    perSource: r.int('SIGN_IN_FAILURES_PER_SOURCE', 5, 1, 1000),
    perAddress: r.int('SIGN_IN_FAILURES_PER_ADDRESS', 50, 1, 100000),
    perDevice: r.int('SIGN_IN_FAILURES_PER_DEVICE', 10, 1, 1000),
    slowAfter: r.int('SIGN_IN_SLOW_AFTER', 10, 1, 1000),
    maxDelayS: r.int('SIGN_IN_MAX_DELAY_S', 300, 1, 3600),
    windowS: r.int('SIGN_IN_WINDOW_S', 900, 60, 86400),
    secondFactorTries: r.int('SIGN_IN_SECOND_FACTOR_TRIES', 3, 1, 10),
    deviceDays: r.int('SIGN_IN_DEVICE_DAYS', 90, 1, 400),
  };
  if (limits.maxDelayS > limits.windowS)
    throw new ConfigError('SIGN_IN_MAX_DELAY_S', `must not exceed SIGN_IN_WINDOW_S (${limits.windowS})`);
  return limits;
}

export function readAccounts(r: EnvReader, env: Env, sessionSecret: string): AccountsConfig {
  return {
    sessionSecret,
    idleTimeoutS: r.int('SESSION_IDLE_TIMEOUT_S', 1800, 60, 86400),
    absoluteTimeoutS: r.int('SESSION_ABSOLUTE_TIMEOUT_S', 43200, 300, 604800),
    consoleUrl: env.CONSOLE_URL?.trim() ? r.url('CONSOLE_URL', '', ['http:', 'https:']) : null,
    sso: parseSsoConfig(env),
    contactRevealsPerHour: r.int('CONTACT_REVEALS_PER_HOUR', 200, 1, 100000),
    signIn: readSignIn(r),
    tokenFailuresPerAddress: r.int('TOKEN_FAILURES_PER_ADDRESS', 20, 1, 100000),
  };
}
