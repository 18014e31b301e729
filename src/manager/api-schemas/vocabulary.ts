import type { DeliveryState } from '../../shared/mongo/documents';
import type { DeliveryKind } from '../../shared/delivery-kind';
import { propertiesOf } from './shared-settings';

// The names the manager's (and the portal's) schemas share.
export const EVENT_NAMES = (propertiesOf('callback-payload.json').event as { enum: string[] }).enum;
export const DELIVERY_STATES = ['queued', 'delivered', 'dead'] as const satisfies readonly DeliveryState[];
export const DELIVERY_KINDS = ['callback', 'postback'] as const satisfies readonly DeliveryKind[];
export const ROTATABLE_SECRETS = ['hmac_secret', 'callback_secret'] as const;
// A rotation's grace: at most a week (partners roll a key out within days).
export const MAX_GRACE_SECONDS = 604800;
