export {
  LeadIntakeClient,
  type ClientOptions,
  type LeadFilters,
  type LeadPage,
  type PageOptions,
  type RetryInfo,
  type SendResult,
} from './client.js';
export { LeadIntakeError } from './errors.js';
export type { RetryPolicy } from './retry.js';
export { verifyCallback, verifyPostback, type VerifiedCallback, type VerifyOptions } from './verify.js';
export type * from './generated/partner-api.js';
