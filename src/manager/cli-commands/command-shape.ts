// What a command of the operator's command line is: the HTTP request it becomes and the flags that fill it.
export interface CliRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export type Kind = 'text' | 'nullable-text' | 'list' | 'json' | 'int' | 'nullable-int' | 'bool';

// A flag and the (dotted) field of the body or query string it fills.
export interface Flag {
  kind: Kind;
  field: string;
}

export interface Command {
  summary: string;
  method: CliRequest['method'];
  path: (id: string) => string;
  needsId?: string; // what the positional id names, when the command takes one
  flags?: Record<string, Flag>;
  sends?: 'body' | 'query';
}

// The small lists (partners, agents) page by offset; the big ones by the next_cursor of the page before.
export const PAGE_FLAGS: Record<string, Flag> = {
  limit: { kind: 'int', field: 'limit' },
  offset: { kind: 'int', field: 'offset' },
};

export const CURSOR_FLAGS: Record<string, Flag> = {
  limit: { kind: 'int', field: 'limit' },
  cursor: { kind: 'text', field: 'cursor' },
};

export const TIME_RANGE_FLAGS: Record<string, Flag> = {
  from: { kind: 'text', field: 'from' },
  to: { kind: 'text', field: 'to' },
};

export const enc = encodeURIComponent;
