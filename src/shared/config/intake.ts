import { ConfigError } from '../errors';
import type { EnvReader } from './env-reader';

// The partner API's limits (the ingress role).
export interface IntakeConfig {
  readonly timestampToleranceS: number;
  readonly replyTimeoutMs: number;
  // How long an intake request may wait for others to set out with (intake-cohort.ts); 0: never. Off by
  // default: it trades up to this much of every answer for the ingress's CPU (docs/benchmarks.md).
  readonly cohortMs: number;
  readonly bodyLimitBytes: number;
  readonly intakePerMinute: number;
  readonly statusPerMinute: number;
  readonly authFailuresPerMinute: number;
  readonly idempotencyTtlS: number;
  // How long a lead's data key stays readable for its intake command on Kafka (intake-keys.ts).
  readonly keyHours: number;
  // How long one GET /api/v1/leads may check entries one by one before it answers a short page.
  readonly reportScanMs: number;
}

// The processor's rules: deduplication, refusals, ids, distribution and retention.
export interface RulesConfig {
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
}

const COUNTRY_CODE = /^[A-Z]{2}$/;

export function readIntake(r: EnvReader): IntakeConfig {
  return {
    timestampToleranceS: r.int('INTAKE_TIMESTAMP_TOLERANCE_S', 300, 1, 3600),
    replyTimeoutMs: r.int('INTAKE_REPLY_TIMEOUT_MS', 5000, 100, 60000),
    cohortMs: r.int('INTAKE_COHORT_MS', 0, 0, 100),
    bodyLimitBytes: r.int('INTAKE_BODY_LIMIT_BYTES', 65536, 1024, 10485760),
    intakePerMinute: r.int('RATE_INTAKE_PER_MINUTE', 60, 1, 1000000),
    statusPerMinute: r.int('RATE_STATUS_PER_MINUTE', 120, 1, 1000000),
    authFailuresPerMinute: r.int('AUTH_FAILURES_PER_MINUTE', 20, 1, 1000000),
    idempotencyTtlS: r.int('IDEMPOTENCY_TTL_S', 86400, 60, 604800),
    keyHours: r.int('INTAKE_KEY_HOURS', 24, 1, 168),
    reportScanMs: r.int('REPORT_SCAN_MS', 50, 1, 10000),
  };
}

// Read before the other rules (a bad list is reported first), hence apart.
export function readBlockedCountries(r: EnvReader): string[] {
  const blockedCountries = r.list('BLOCKED_COUNTRIES').map((c) => c.toUpperCase());
  const badCountry = blockedCountries.find((c) => !COUNTRY_CODE.test(c));
  if (badCountry) throw new ConfigError('BLOCKED_COUNTRIES', `must hold 2-letter codes, got "${badCountry}"`);
  return blockedCountries;
}

export function readRules(r: EnvReader, blockedCountries: readonly string[]): RulesConfig {
  return {
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
  };
}
