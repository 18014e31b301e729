// Typed configuration, read once from the environment at start, validated, then frozen.
// A bad or missing variable throws ConfigError naming it; main.ts prints it and exits 1.
import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { ConfigError } from './errors';
import { parseSsoConfig, type SsoConfig } from './identity/sso-config';

export type Role = 'ingress' | 'processor' | 'dispatcher';
export const ROLES: readonly Role[] = ['ingress', 'processor', 'dispatcher'];

export interface Config {
  readonly roles: readonly Role[];
  readonly serviceName: string;
  readonly http: { readonly host: string; readonly port: number; readonly trustedProxies: readonly string[] };
  readonly logLevel: string;
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly topicPrefix: string;
    readonly sessionTimeoutMs: number;
    // Of the topics this service creates: 1 on a laptop, 3 and 2 in production (the chart's values).
    readonly replicationFactor: number;
    readonly minInsyncReplicas: number;
  };
  readonly schemaRegistryUrl: string;
  readonly mongo: { readonly url: string; readonly db: string };
  // commandTimeoutMs: how long any Redis command may wait for its answer (queued while reconnecting included).
  readonly redis: { readonly url: string; readonly prefix: string; readonly commandTimeoutMs: number };
  readonly crypto: {
    readonly encryptionKeys: ReadonlyMap<string, Buffer>;
    readonly activeKeyId: string;
    // A key object: Node prepares a raw buffer key again on every HMAC.
    readonly hashKey: KeyObject;
  };
  readonly managerTokens: readonly string[];
  // How long a manager request waits for the dispatcher to confirm a command (retry, replay).
  readonly managerCommandTimeoutMs: number;
  // People signing in to the console (src/manager/identity): sessions and single sign-on.
  readonly accounts: {
    // Signs the session cookie (SESSION_SECRET; else derived from HASH_KEY).
    readonly sessionSecret: string;
    readonly idleTimeoutS: number;
    readonly absoluteTimeoutS: number;
    // Where the console is reached, to show one-time links whole (else the console builds them).
    readonly consoleUrl: string | null;
    readonly sso: SsoConfig | null;
    // Contacts revealed for one agent in any 60 minutes (by the agent, its supervisor or its CRM).
    readonly contactRevealsPerHour: number;
  };
  readonly intake: {
    readonly timestampToleranceS: number;
    readonly replyTimeoutMs: number;
    readonly bodyLimitBytes: number;
    readonly intakePerMinute: number;
    readonly statusPerMinute: number;
    readonly authFailuresPerMinute: number;
    readonly idempotencyTtlS: number;
    // How long a lead's data key stays readable for its intake command on Kafka (intake-keys.ts).
    readonly keyHours: number;
  };
  readonly rules: {
    readonly dedupWindowDays: number;
    readonly blockedCountries: readonly string[];
    readonly blockedSources: readonly string[];
    readonly blockedIpRanges: readonly string[];
    readonly statusCatalogFile: string | null;
    readonly idBlockSize: number;
    readonly distributionIntervalMs: number;
    readonly crmParkMaxMs: number;
    // 0: personal data is kept; otherwise erased (keys dropped by day) once a lead is this old.
    readonly personalDataRetentionDays: number;
    readonly riskBurstWindowMs: number;
    readonly riskBurstPerIp: number;
    readonly riskBurstPerSubnet: number;
    readonly idleRedistributionS: number;
  };
  readonly callbacks: {
    readonly timeoutMs: number;
    readonly retryDelaysS: readonly number[];
    readonly allowPrivateNetworks: boolean;
    readonly allowHttp: boolean;
    readonly responseBodyLimit: number;
    readonly concurrency: number;
    readonly perPartnerConcurrency: number;
    readonly maxQueuedPerPartner: number;
  };
  // Endpoint health and auto-pause (issue 13): a partner's endpoint is paused once every attempt has
  // failed for pauseAfterS (and at least pauseMinFailures attempts in a row).
  readonly endpoints: {
    readonly pauseAfterS: number;
    readonly pauseMinFailures: number;
    readonly healthReportMs: number;
    readonly resumeRatePerS: number;
  };
  readonly replay: {
    readonly maxRangeS: number;
    readonly ratePerS: number;
  };
}

// What `main.ts setup` needs (topics and schemas): where Kafka and the registry are, nothing secret,
// so the chart's pre-install Job runs before any Secret of the release exists.
export type SetupConfig = Pick<Config, 'kafka' | 'schemaRegistryUrl' | 'logLevel'>;

export { ConfigError };

type Env = Record<string, string | undefined>;

class Reader {
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string {
    const raw = this.env[name];
    if (raw !== undefined && raw.trim() !== '') return raw.trim();
    if (fallback !== undefined) return fallback;
    throw new ConfigError(name, 'is required');
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(name, `must be true or false, got "${raw}"`);
  }

  list(name: string, fallback: readonly string[] = []): string[] {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return [...fallback];
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  url(name: string, fallback: string, protocols: readonly string[]): string {
    const value = this.string(name, fallback);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(name, `must be a URL, got "${value}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
    return value.replace(/\/$/, '');
  }
}

function parseKeyring(name: string, raw: string): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const entry of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [id, material] = entry.split(':');
    if (!id || !material || !/^[A-Za-z0-9_-]{1,16}$/.test(id)) {
      throw new ConfigError(name, 'must be a comma-separated list of <key id>:<base64 32-byte key>');
    }
    const key = Buffer.from(material, 'base64');
    if (key.length !== 32) throw new ConfigError(name, `key "${id}" must be 32 bytes of base64`);
    keys.set(id, key);
  }
  if (keys.size === 0) throw new ConfigError(name, 'must hold at least one key');
  return keys;
}

function parseRoles(raw: string): Role[] {
  if (raw === 'all') return [...ROLES];
  const roles = raw.split(',').map((s) => s.trim());
  for (const role of roles) {
    if (!ROLES.includes(role as Role))
      throw new ConfigError('ROLE', `must be all or a list of ${ROLES.join(', ')}, got "${role}"`);
  }
  return roles as Role[];
}

const COUNTRY_CODE = /^[A-Z]{2}$/;

export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env);
  const roles = parseRoles(r.string('ROLE', 'all'));

  const encryptionKeys = parseKeyring('ENCRYPTION_KEYS', r.string('ENCRYPTION_KEYS'));
  const activeKeyId = r.string('ENCRYPTION_ACTIVE_KEY', [...encryptionKeys.keys()][0]);
  if (!encryptionKeys.has(activeKeyId))
    throw new ConfigError('ENCRYPTION_ACTIVE_KEY', `names no key in ENCRYPTION_KEYS ("${activeKeyId}")`);
  const hashKeyBytes = Buffer.from(r.string('HASH_KEY'), 'base64');
  if (hashKeyBytes.length < 32) throw new ConfigError('HASH_KEY', 'must be at least 32 bytes of base64');
  const hashKey = createSecretKey(hashKeyBytes);

  const sessionSecret = r.string(
    'SESSION_SECRET',
    createHmac('sha256', hashKey).update('session-cookie').digest('base64url'),
  );
  if (sessionSecret.length < 32) throw new ConfigError('SESSION_SECRET', 'must be at least 32 characters');

  const managerTokens = r.list('MANAGER_TOKENS');
  if (roles.includes('ingress')) {
    if (managerTokens.length === 0) throw new ConfigError('MANAGER_TOKENS', 'is required for the ingress role');
    if (managerTokens.some((t) => t.length < 24))
      throw new ConfigError('MANAGER_TOKENS', 'tokens must be at least 24 characters');
  }

  const retryDelaysS = r.list('CALLBACK_RETRY_DELAYS_S', ['60', '300', '1800', '7200']).map((s) => Number(s));
  if (retryDelaysS.length !== 4 || retryDelaysS.some((d) => !Number.isInteger(d) || d < 1)) {
    throw new ConfigError('CALLBACK_RETRY_DELAYS_S', 'must be four whole numbers of seconds, one per retry topic');
  }

  const blockedCountries = r.list('BLOCKED_COUNTRIES').map((c) => c.toUpperCase());
  const badCountry = blockedCountries.find((c) => !COUNTRY_CODE.test(c));
  if (badCountry) throw new ConfigError('BLOCKED_COUNTRIES', `must hold 2-letter codes, got "${badCountry}"`);

  const config: Config = {
    ...setupSettings(r),
    roles,
    serviceName: r.string('SERVICE_NAME', 'LeadIntake'),
    http: {
      host: r.string('HTTP_HOST', '0.0.0.0'),
      port: r.int('HTTP_PORT', 8080, 0, 65535),
      trustedProxies: r.list('TRUSTED_PROXIES'),
    },
    mongo: {
      url: r.url('MONGO_URL', 'mongodb://127.0.0.1:27017', ['mongodb:', 'mongodb+srv:']),
      db: r.string('MONGO_DB', 'lead_intake'),
    },
    redis: {
      url: r.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
      prefix: r.string('REDIS_PREFIX', 'li:'),
      commandTimeoutMs: r.int('REDIS_COMMAND_TIMEOUT_MS', 1000, 50, 60000),
    },
    crypto: { encryptionKeys, activeKeyId, hashKey },
    managerTokens,
    managerCommandTimeoutMs: r.int('MANAGER_COMMAND_TIMEOUT_MS', 15000, 100, 120000),
    accounts: {
      sessionSecret,
      idleTimeoutS: r.int('SESSION_IDLE_TIMEOUT_S', 1800, 60, 86400),
      absoluteTimeoutS: r.int('SESSION_ABSOLUTE_TIMEOUT_S', 43200, 300, 604800),
      consoleUrl: env.CONSOLE_URL?.trim() ? r.url('CONSOLE_URL', '', ['http:', 'https:']) : null,
      sso: parseSsoConfig(env),
      contactRevealsPerHour: r.int('CONTACT_REVEALS_PER_HOUR', 200, 1, 100000),
    },
    intake: {
      timestampToleranceS: r.int('INTAKE_TIMESTAMP_TOLERANCE_S', 300, 1, 3600),
      replyTimeoutMs: r.int('INTAKE_REPLY_TIMEOUT_MS', 5000, 100, 60000),
      bodyLimitBytes: r.int('INTAKE_BODY_LIMIT_BYTES', 65536, 1024, 10485760),
      intakePerMinute: r.int('RATE_INTAKE_PER_MINUTE', 60, 1, 1000000),
      statusPerMinute: r.int('RATE_STATUS_PER_MINUTE', 120, 1, 1000000),
      authFailuresPerMinute: r.int('AUTH_FAILURES_PER_MINUTE', 20, 1, 1000000),
      idempotencyTtlS: r.int('IDEMPOTENCY_TTL_S', 86400, 60, 604800),
      keyHours: r.int('INTAKE_KEY_HOURS', 24, 1, 168),
    },
    rules: {
      dedupWindowDays: r.int('DEDUP_WINDOW_DAYS', 30, 1, 3650),
      blockedCountries,
      blockedSources: r.list('BLOCKED_SOURCES'),
      blockedIpRanges: r.list('BLOCKED_IP_RANGES'),
      statusCatalogFile: r.string('STATUS_CATALOG_FILE', '') || null,
      idBlockSize: r.int('ID_BLOCK_SIZE', 1000, 1, 100000),
      distributionIntervalMs: r.int('DISTRIBUTION_INTERVAL_MS', 5000, 100, 600000),
      crmParkMaxMs: r.int('CRM_PARK_MAX_MS', 900000, 1000, 604800000),
      personalDataRetentionDays: r.int('PERSONAL_DATA_RETENTION_DAYS', 0, 0, 36500),
      riskBurstWindowMs: r.int('RISK_BURST_WINDOW_S', 600, 1, 86400) * 1000,
      riskBurstPerIp: r.int('RISK_BURST_PER_IP', 5, 1, 1000000),
      riskBurstPerSubnet: r.int('RISK_BURST_PER_SUBNET', 20, 1, 1000000),
      // At most 3 days: checks wait on leads.idle-checks, which keeps 7.
      idleRedistributionS: r.int('IDLE_REDISTRIBUTION_S', 1800, 0, 259200),
    },
    callbacks: {
      timeoutMs: r.int('CALLBACK_TIMEOUT_MS', 10000, 100, 60000),
      retryDelaysS,
      allowPrivateNetworks: r.bool('CALLBACK_ALLOW_PRIVATE_NETWORKS', false),
      allowHttp: r.bool('CALLBACK_ALLOW_HTTP', false),
      responseBodyLimit: r.int('CALLBACK_RESPONSE_BODY_LIMIT', 2048, 0, 65536),
      concurrency: r.int('CALLBACK_CONCURRENCY', 128, 1, 10000),
      perPartnerConcurrency: r.int('CALLBACK_PER_PARTNER_CONCURRENCY', 16, 1, 1000),
      maxQueuedPerPartner: r.int('CALLBACK_MAX_QUEUED_PER_PARTNER', 1000, 1, 100000),
    },
    endpoints: {
      pauseAfterS: r.int('ENDPOINT_PAUSE_AFTER_S', 86400, 1, 2592000),
      pauseMinFailures: r.int('ENDPOINT_PAUSE_MIN_FAILURES', 5, 1, 1000000),
      healthReportMs: r.int('ENDPOINT_HEALTH_REPORT_MS', 5000, 100, 600000),
      resumeRatePerS: r.int('ENDPOINT_RESUME_RATE_PER_S', 10, 1, 10000),
    },
    replay: {
      maxRangeS: r.int('REPLAY_MAX_RANGE_S', 604800, 60, 31536000),
      ratePerS: r.int('REPLAY_RATE_PER_S', 20, 1, 10000),
    },
  };
  return deepFreeze(config);
}

export function loadSetupConfig(env: Env = process.env): SetupConfig {
  return deepFreeze(setupSettings(new Reader(env)));
}

function setupSettings(r: Reader): SetupConfig {
  const brokers = r.list('KAFKA_BROKERS', ['127.0.0.1:9092']);
  if (brokers.some((b) => !/^[^:\s]+:\d+$/.test(b)))
    throw new ConfigError('KAFKA_BROKERS', 'must be a list of host:port');
  const replicationFactor = r.int('KAFKA_REPLICATION_FACTOR', 1, 1, 32);
  const minInsyncReplicas = r.int('KAFKA_MIN_INSYNC_REPLICAS', 1, 1, 32);
  if (minInsyncReplicas > replicationFactor) {
    throw new ConfigError(
      'KAFKA_MIN_INSYNC_REPLICAS',
      `must not exceed KAFKA_REPLICATION_FACTOR (${replicationFactor}), got ${minInsyncReplicas}`,
    );
  }
  return {
    logLevel: r.string('LOG_LEVEL', 'info'),
    kafka: {
      brokers,
      clientId: r.string('KAFKA_CLIENT_ID', 'lead-intake'),
      topicPrefix: r.string('TOPIC_PREFIX', ''),
      sessionTimeoutMs: r.int('KAFKA_SESSION_TIMEOUT_MS', 30000, 6000, 300000),
      replicationFactor,
      minInsyncReplicas,
    },
    schemaRegistryUrl: r.url('SCHEMA_REGISTRY_URL', 'http://127.0.0.1:8081/apis/ccompat/v7', ['http:', 'https:']),
  };
}

function deepFreeze<T>(value: T): T {
  if (
    value &&
    typeof value === 'object' &&
    !(value instanceof Map) &&
    !Buffer.isBuffer(value) &&
    !(value instanceof KeyObject)
  ) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
