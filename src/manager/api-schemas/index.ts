import { agentSchemas } from './agent-schemas';
import { auditSchemas } from './audit-schemas';
import { deliverySchemas } from './delivery-schemas';
import { endpointSchemas } from './endpoint-schemas';
import { leadSchemas } from './lead-schemas';
import { overviewSchemas } from './overview-schemas';
import { partnerSchemas } from './partner-schemas';

// Route schemas of the manager API: they validate requests and are the source of the OpenAPI
// document. One module per resource; the routes take theirs by name from here.
export { affiliateBodySchemas } from './partner-schemas';
export { SHARED_SCHEMA_IDS } from './shared-settings';
export { DELIVERY_KINDS, DELIVERY_STATES, EVENT_NAMES, MAX_GRACE_SECONDS, ROTATABLE_SECRETS } from './vocabulary';

export const routeSchemas = {
  ...partnerSchemas,
  ...endpointSchemas,
  ...deliverySchemas,
  ...agentSchemas,
  ...leadSchemas,
  ...overviewSchemas,
  ...auditSchemas,
} as const;
