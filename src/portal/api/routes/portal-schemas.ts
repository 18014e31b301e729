import { portalDeliverySchemas } from './portal-delivery-schemas';
import { portalEndpointSchemas } from './portal-endpoint-schemas';
import { portalLeadSchemas } from './portal-lead-schemas';
import { portalOverviewSchemas } from './portal-overview-schemas';

// Route schemas of the portal's data routes: they validate requests and are the source of the
// portal's OpenAPI document. Every answer is the signed-in partner's own; no schema here has a
// field for personal data (beyond a masked phone), an agent or money.
export const portalDataSchemas = {
  ...portalOverviewSchemas,
  ...portalLeadSchemas,
  ...portalDeliverySchemas,
  ...portalEndpointSchemas,
};
