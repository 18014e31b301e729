import { CURSOR_FLAGS, enc, TIME_RANGE_FLAGS, type Command } from './command-shape';

// The commands about the delivery queue: list, show and retry.
export const DELIVERY_COMMANDS: Record<string, Command> = {
  'list-deliveries': {
    summary: 'List callback deliveries, newest first by when each record was created (--from, --to: ISO times)',
    method: 'GET',
    path: () => '/api/deliveries',
    sends: 'query',
    flags: {
      state: { kind: 'text', field: 'state' },
      'affiliate-id': { kind: 'text', field: 'affiliate_id' },
      event: { kind: 'text', field: 'event' },
      ...TIME_RANGE_FLAGS,
      ...CURSOR_FLAGS,
    },
  },
  'show-delivery': {
    summary: 'Show a delivery and its attempts',
    method: 'GET',
    path: (id) => `/api/deliveries/${enc(id)}`,
    needsId: 'delivery id',
  },
  'retry-delivery': {
    summary: 'Retry a dead delivery',
    method: 'POST',
    path: (id) => `/api/deliveries/${enc(id)}/retry`,
    needsId: 'delivery id',
  },
  'retry-dead': {
    summary: "Retry all of a partner's dead deliveries",
    method: 'POST',
    path: (id) => `/api/affiliates/${enc(id)}/deliveries/retry-dead`,
    needsId: 'partner id',
  },
};
