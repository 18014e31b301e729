import { partnerService } from '../../src/manager/services';
import type { PartnerService } from '../../src/manager/partner-service';
import type { Runtime } from '../../src/shared/runtime';

// Partners over a test app's runtime, as the manager keeps them.
export const servicesOf = (rt: Runtime): { partners: PartnerService } => ({ partners: partnerService(rt) });
