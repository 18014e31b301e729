import { ConfigError } from '../errors';
import type { EnvReader } from './env-reader';

// The dispatcher's callbacks to partners.
export interface CallbackConfig {
  readonly timeoutMs: number;
  readonly retryDelaysS: readonly number[];
  readonly allowPrivateNetworks: boolean;
  readonly allowHttp: boolean;
  readonly responseBodyLimit: number;
  readonly concurrency: number;
  readonly perPartnerConcurrency: number;
  readonly maxQueuedPerPartner: number;
}

// Endpoint health and auto-pause: a partner's endpoint is paused once every attempt has failed for
// pauseAfterS (and at least pauseMinFailures attempts in a row).
export interface EndpointConfig {
  readonly pauseAfterS: number;
  readonly pauseMinFailures: number;
  readonly healthReportMs: number;
  // An endpoint's circuit opens after this many failed attempts in a row on one dispatcher; it then
  // stays open for the retry schedule's delay before each probe, at most circuitOpenS.
  readonly circuitFailures: number;
  readonly circuitOpenS: number;
}

export interface ReplayConfig {
  readonly maxRangeS: number;
  readonly ratePerS: number;
}

// Read before the other callback settings (a bad list is reported first), hence apart.
export function readRetryDelays(r: EnvReader): number[] {
  const retryDelaysS = r.list('CALLBACK_RETRY_DELAYS_S', ['60', '300', '1800', '7200']).map((s) => Number(s));
  if (retryDelaysS.length !== 4 || retryDelaysS.some((d) => !Number.isInteger(d) || d < 1)) {
    throw new ConfigError('CALLBACK_RETRY_DELAYS_S', 'must be four whole numbers of seconds, one per retry topic');
  }
  return retryDelaysS;
}

export function readCallbacks(r: EnvReader, retryDelaysS: readonly number[]): CallbackConfig {
  return {
    timeoutMs: r.int('CALLBACK_TIMEOUT_MS', 10000, 100, 60000),
    retryDelaysS,
    allowPrivateNetworks: r.bool('CALLBACK_ALLOW_PRIVATE_NETWORKS', false),
    allowHttp: r.bool('CALLBACK_ALLOW_HTTP', false),
    responseBodyLimit: r.int('CALLBACK_RESPONSE_BODY_LIMIT', 2048, 0, 65536),
    concurrency: r.int('CALLBACK_CONCURRENCY', 128, 1, 10000),
    perPartnerConcurrency: r.int('CALLBACK_PER_PARTNER_CONCURRENCY', 16, 1, 1000),
    maxQueuedPerPartner: r.int('CALLBACK_MAX_QUEUED_PER_PARTNER', 1000, 1, 100000),
  };
}

export function readEndpoints(r: EnvReader): EndpointConfig {
  return {
    pauseAfterS: r.int('ENDPOINT_PAUSE_AFTER_S', 86400, 1, 2592000),
    pauseMinFailures: r.int('ENDPOINT_PAUSE_MIN_FAILURES', 5, 1, 1000000),
    healthReportMs: r.int('ENDPOINT_HEALTH_REPORT_MS', 5000, 100, 600000),
    circuitFailures: r.int('ENDPOINT_CIRCUIT_FAILURES', 20, 1, 100000),
    circuitOpenS: r.int('ENDPOINT_CIRCUIT_OPEN_S', 60, 1, 3600),
  };
}

export function readReplay(r: EnvReader): ReplayConfig {
  return {
    maxRangeS: r.int('REPLAY_MAX_RANGE_S', 604800, 60, 31536000),
    ratePerS: r.int('REPLAY_RATE_PER_S', 20, 1, 10000),
  };
}
