import { restartDrillSuite } from '../support/restart-drill';

// Fault drill: Redis (idempotency records, rate-limit windows, cap counters, partner and agent change
// notices) stops in the middle of a steady load and comes back with its append-only data. It is a
// PRIVATE instance (scripts/services/redis.sh on a free port, data in a temporary LEADS_RUN); the
// shared one other test files use is never touched. Kafka, MongoDB and
// the registry are the shared ones. While it is down the partner API answers 503 with Retry-After;
// once it is back the app recovers without help, and nothing is lost or doubled.
restartDrillSuite('redis', 'Redis', 6000);
