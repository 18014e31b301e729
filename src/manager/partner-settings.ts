import { describeErrors, validatorFor, type PartnerSettings } from '../shared/schemas';
import type { Statuses } from '../shared/status-catalog';
import { parseCidr } from '../shared/net/cidr';
import { timeZoneProblem } from './time-zone-setting';

const validate = validatorFor<PartnerSettings>('partner-settings.json');

// Checks a manager's partner settings beyond the schema: a usable callback URL, status mappings
// only from statuses we have, valid CIDR ranges, a known time zone. Returns the problem or null.
export function settingsProblem(settings: unknown, statuses: Statuses, allowHttp: boolean): string | null {
  if (!validate(settings)) return describeErrors(validate.errors);
  const s = settings as PartnerSettings;
  if (s.callback_url) {
    const url = URL.canParse(s.callback_url) ? new URL(s.callback_url) : null;
    if (!url) return '/callback_url is not a URL';
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return '/callback_url must be an https URL';
    if (url.username || url.password) return '/callback_url must not carry credentials';
  }
  for (const from of Object.keys(s.status_mapping ?? {})) {
    if (!statuses.has(from)) return `/status_mapping maps unknown status "${from}"`;
  }
  for (const range of s.blocked_ip_ranges ?? []) {
    if (!parseCidr(range)) return `/blocked_ip_ranges holds "${range}", which is not an IP or CIDR range`;
  }
  return timeZoneProblem(s);
}
