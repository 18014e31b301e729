import { describeErrors, validatorFor, type PartnerSettings } from '../shared/schemas';
import type { Statuses } from '../shared/status-catalog';
import { parseCidr } from '../shared/net/cidr';
import { timeZoneProblem } from './time-zone-setting';
import { templateProblem, templatesOf, type Postbacks } from '../shared/postbacks/postback-template';

function postbackMappings(
  postbacks: Postbacks | null | undefined,
): { path: string; mapping: Record<string, string> | undefined }[] {
  if (!postbacks) return [];
  return [
    { path: '/postbacks/status_mapping', mapping: postbacks.status_mapping },
    ...(postbacks.templates ?? []).map((own, i) => ({
      path: `/postbacks/templates/${i}/status_mapping`,
      mapping: own.status_mapping,
    })),
  ];
}

const validate = validatorFor<PartnerSettings>('partner-settings.json');

// Checks a manager's partner settings beyond the schema: a usable callback URL, status mappings
// only from statuses we have, valid CIDR ranges, a known time zone, postback templates that name
// only macros we fill (never money or personal data). tokenSet: whether the partner will have a
// postback token once these settings are saved. Returns the problem or null.
export function settingsProblem(
  settings: unknown,
  statuses: Statuses,
  allowHttp: boolean,
  tokenSet = false,
): string | null {
  if (!validate(settings)) return describeErrors(validate.errors);
  const s = settings as PartnerSettings;
  if (s.callback_url) {
    const url = URL.canParse(s.callback_url) ? new URL(s.callback_url) : null;
    if (!url) return '/callback_url is not a URL';
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
      return '/callback_url must be an https URL';
    if (url.username || url.password) return '/callback_url must not carry credentials';
  }
  const mappings = [{ path: '/status_mapping', mapping: s.status_mapping }, ...postbackMappings(s.postbacks)];
  for (const { path, mapping } of mappings) {
    for (const from of Object.keys(mapping ?? {})) {
      if (!statuses.has(from)) return `${path} maps unknown status "${from}"`;
    }
  }
  if (s.postbacks) {
    for (const { path, template } of templatesOf(s.postbacks)) {
      const problem = templateProblem(template, { allowHttp, tokenSet });
      if (problem) return `${path} ${problem}`;
    }
    if (s.postbacks.sign && !tokenSet) return '/postbacks/sign needs a postback token (postbacks.token)';
    const events = (s.postbacks.templates ?? []).map((t) => t.event);
    const twice = events.find((e, i) => events.indexOf(e) !== i);
    if (twice) return `/postbacks/templates has two templates for ${twice}`;
  }
  for (const range of s.blocked_ip_ranges ?? []) {
    if (!parseCidr(range)) return `/blocked_ip_ranges holds "${range}", which is not an IP or CIDR range`;
  }
  return timeZoneProblem(s);
}
