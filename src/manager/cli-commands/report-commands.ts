import { CURSOR_FLAGS, type Command, type Flag } from './command-shape';

// The commands that read the records of the past: the reports and the audit log.
const REPORT_FLAGS: Record<string, Flag> = {
  from: { kind: 'text', field: 'from' },
  to: { kind: 'text', field: 'to' },
  'group-by': { kind: 'text', field: 'group_by' },
  'affiliate-id': { kind: 'text', field: 'affiliate_id' },
  country: { kind: 'text', field: 'country' },
  source: { kind: 'text', field: 'source' },
};

export const REPORT_COMMANDS: Record<string, Command> = {
  report: {
    summary:
      "Counts, rates and medians over --from..--to (YYYY-MM-DD, the partner's days), --group-by partner,country,source,day",
    method: 'GET',
    path: () => '/api/reports',
    flags: REPORT_FLAGS,
    sends: 'query',
  },
  'report-csv': {
    summary: 'The same report as CSV',
    method: 'GET',
    path: () => '/api/reports.csv',
    flags: REPORT_FLAGS,
    sends: 'query',
  },
  'audit-log': {
    summary: 'List manager actions',
    method: 'GET',
    path: () => '/api/audit-log',
    sends: 'query',
    flags: {
      'affiliate-id': { kind: 'text', field: 'affiliate_id' },
      action: { kind: 'text', field: 'action' },
      ...CURSOR_FLAGS,
    },
  },
};
