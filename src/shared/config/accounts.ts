import { parseSsoConfig, type SsoConfig } from '../identity/sso-config';
import type { Env, EnvReader } from './env-reader';

// People signing in to the console (src/manager/identity): sessions and single sign-on.
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
}

export function readAccounts(r: EnvReader, env: Env, sessionSecret: string): AccountsConfig {
  return {
    sessionSecret,
    idleTimeoutS: r.int('SESSION_IDLE_TIMEOUT_S', 1800, 60, 86400),
    absoluteTimeoutS: r.int('SESSION_ABSOLUTE_TIMEOUT_S', 43200, 300, 604800),
    consoleUrl: env.CONSOLE_URL?.trim() ? r.url('CONSOLE_URL', '', ['http:', 'https:']) : null,
    sso: parseSsoConfig(env),
    contactRevealsPerHour: r.int('CONTACT_REVEALS_PER_HOUR', 200, 1, 100000),
  };
}
