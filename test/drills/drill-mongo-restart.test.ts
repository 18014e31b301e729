import { restartDrillSuite } from '../support/restart-drill';

// Fault drill: the MongoDB-wire server (FerretDB) stops in the middle of a steady load and comes
// back with its data. It is a PRIVATE instance (scripts/services/ferretdb.sh on a free port, data in
// a temporary LEADS_RUN); the shared one other test files use is never touched. Kafka, Redis and
// the registry are the shared ones. While it is down the partner API answers 503 with Retry-After;
// once it is back the app recovers without help, and nothing is lost or doubled.
// Longer than the driver's 5 s server selection, which rides out a shorter outage without an error.
restartDrillSuite('ferretdb', 'MongoDB', 12000);
