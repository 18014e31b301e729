import { CURSOR_FLAGS, enc, TIME_RANGE_FLAGS, type Command } from './command-shape';

// The commands about leads: one lead, the lead list, an agent's leads and the erasure of personal data.
export const LEAD_COMMANDS: Record<string, Command> = {
  'show-lead': {
    summary: 'Show a lead: status, history, risk, sandbox mark (never its personal data)',
    method: 'GET',
    path: (id) => `/api/leads/${enc(id)}`,
    needsId: 'lead id',
  },
  leads: {
    summary:
      'List leads, newest first, never their personal data (--from, --to: ISO times of creation; a rare --country or --source may print a short page with a next_cursor)',
    method: 'GET',
    path: () => '/api/leads',
    sends: 'query',
    flags: {
      'affiliate-id': { kind: 'text', field: 'affiliate_id' },
      status: { kind: 'text', field: 'status' },
      country: { kind: 'text', field: 'country_code' },
      source: { kind: 'text', field: 'source' },
      'is-depositor': { kind: 'bool', field: 'is_depositor' },
      ...TIME_RANGE_FLAGS,
      ...CURSOR_FLAGS,
    },
  },
  'agent-leads': {
    summary: "The agent's view: its leads with their risk",
    method: 'GET',
    path: (id) => `/api/agents/${enc(id)}/leads`,
    needsId: 'agent id',
    flags: CURSOR_FLAGS,
    sends: 'query',
  },
  'erase-personal-data': {
    summary: "Erase a lead's personal data (its data key is destroyed; status and history stay)",
    method: 'DELETE',
    path: (id) => `/api/leads/${enc(id)}/personal-data`,
    needsId: 'lead id',
  },
};
