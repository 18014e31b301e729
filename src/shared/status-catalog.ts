import { readFileSync } from 'node:fs';

// The statuses a lead can have and the moves between them (spec 3.1 and 3.2). This is the default;
// an installation replaces it with STATUS_CATALOG_FILE (same JSON shape) to add custom codes.
// Deposit-driven statuses (ftd, rtd, chargeback) are reached only through the deposits topic.
export interface StatusDef {
  code: string;
  terminal: boolean;
  scope: 'lead' | 'client' | 'both';
}

export interface StatusCatalog {
  statuses: StatusDef[];
  transitions: Record<string, string[]>;
}

export const DEPOSIT_STATUSES = ['ftd', 'rtd', 'chargeback'] as const;
const WORKING = ['contacted', 'callback', 'interested'];
const FAILED = ['no_answer', 'wrong_number', 'trash'];

export const DEFAULT_CATALOG: StatusCatalog = {
  statuses: [
    { code: 'new', terminal: false, scope: 'both' },
    { code: 'assigned', terminal: false, scope: 'both' },
    { code: 'contacted', terminal: false, scope: 'both' },
    { code: 'callback', terminal: false, scope: 'both' },
    { code: 'interested', terminal: false, scope: 'both' },
    { code: 'no_answer', terminal: true, scope: 'lead' },
    { code: 'wrong_number', terminal: true, scope: 'lead' },
    { code: 'trash', terminal: true, scope: 'lead' },
    { code: 'ftd', terminal: false, scope: 'client' },
    { code: 'rtd', terminal: false, scope: 'client' },
    { code: 'chargeback', terminal: true, scope: 'client' },
  ],
  transitions: {
    new: ['assigned', ...WORKING, ...FAILED],
    assigned: [...WORKING, ...FAILED],
    contacted: ['callback', 'interested', ...FAILED, 'ftd'],
    callback: ['contacted', 'interested', ...FAILED, 'ftd'],
    interested: ['contacted', 'callback', ...FAILED, 'ftd'],
    ftd: ['rtd', 'chargeback'],
    rtd: ['rtd', 'chargeback'],
  },
};

// Intake outcomes that are not in the working catalogue but can appear in our_status.
export const INTAKE_STATUSES = ['rejected'];

export class Statuses {
  private readonly byCode: Map<string, StatusDef>;

  constructor(readonly catalog: StatusCatalog) {
    this.byCode = new Map(catalog.statuses.map((s) => [s.code, s]));
    for (const required of ['new', 'assigned', ...DEPOSIT_STATUSES]) {
      if (!this.byCode.has(required)) throw new Error(`status catalogue must define "${required}"`);
    }
    for (const [from, tos] of Object.entries(catalog.transitions)) {
      for (const code of [from, ...tos])
        if (!this.byCode.has(code)) throw new Error(`status catalogue: unknown status "${code}"`);
      if (this.byCode.get(from)?.terminal)
        throw new Error(`status catalogue: terminal status "${from}" has transitions`);
    }
  }

  has(code: string): boolean {
    return this.byCode.has(code) || INTAKE_STATUSES.includes(code);
  }

  isTerminal(code: string): boolean {
    return INTAKE_STATUSES.includes(code) || this.byCode.get(code)?.terminal === true;
  }

  canMove(from: string, to: string): boolean {
    return !this.isTerminal(from) && (this.catalog.transitions[from] ?? []).includes(to);
  }

  codes(): string[] {
    return [...this.byCode.keys(), ...INTAKE_STATUSES];
  }
}

export function loadStatuses(file: string | null): Statuses {
  if (!file) return new Statuses(DEFAULT_CATALOG);
  return new Statuses(JSON.parse(readFileSync(file, 'utf8')) as StatusCatalog);
}
