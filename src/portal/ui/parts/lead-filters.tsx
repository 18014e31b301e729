import { useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { go } from '../../../ui-kit/router';
import { TimeRange } from '../../../ui-kit/time-range';
import { useLoad } from '../../../ui-kit/ui';

// The filters, kept in the URL under the API's own names.
export const FILTERS = ['status', 'from', 'to', 'source', 'sub_id', 'click_id', 'country', 'external_id'] as const;
export type Filter = Record<(typeof FILTERS)[number], string>;

export const filterOf = (params: URLSearchParams): Filter =>
  Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filter;

const ANY = { placeholder: 'any' };
const TEXT_FIELDS: [keyof Filter, string, Record<string, string | number>][] = [
  ['source', 'Source', ANY],
  ['sub_id', 'Sub id', ANY],
  ['click_id', 'Click id', ANY],
  ['country', 'Country', { placeholder: 'GB', maxLength: 2, pattern: '[A-Za-z]{2}' }],
  ['external_id', 'External id', {}],
];

// The lead list's filter form: the status from the installation's catalogue (with the partner's
// own name for it), the routing fields sent at intake, a country, an external id and a time range.
export function LeadFilters({ api, filter, zone }: { api: Api; filter: Filter; zone: string }) {
  const [draft, setDraft] = useState(filter);
  const statuses = useLoad(() => api.get<{ statuses: { code: string; yours: string }[] }>('/portal/api/statuses'), []);
  const set = (f: keyof Filter) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value.trim() });
  return (
    <form
      class="filters"
      aria-label="Filter leads"
      onSubmit={(e) => {
        e.preventDefault();
        go('leads', { ...draft, country: draft.country.toUpperCase() });
      }}
    >
      <div class="field">
        <label for="l-status">Status</label>
        <select id="l-status" value={draft.status} onChange={set('status')}>
          <option value="">any</option>
          {(statuses.data?.statuses ?? []).map((s) => (
            <option key={s.code} value={s.code}>
              {s.yours === s.code ? s.code : `${s.code} (yours: ${s.yours})`}
            </option>
          ))}
        </select>
      </div>
      <TimeRange idPrefix="l" from={draft.from} to={draft.to} onFrom={set('from')} onTo={set('to')} zone={zone} />
      {TEXT_FIELDS.map(([f, label, attrs]) => (
        <div class="field" key={f}>
          <label for={`l-${f}`}>{label}</label>
          <input id={`l-${f}`} value={draft[f]} onInput={set(f)} {...attrs} />
        </div>
      ))}
      <button type="submit">Filter</button>
    </form>
  );
}
