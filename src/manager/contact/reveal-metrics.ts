import { Counter, type Registry } from 'prom-client';
import type { RevealVerdict } from './reveal-access';

export type RevealOutcome = RevealVerdict['outcome'] | 'quota_exceeded';
const OUTCOMES: readonly RevealOutcome[] = ['revealed', 'no_agent', 'not_found', 'erased', 'quota_exceeded'];

// Contact reveals by outcome (never by agent or lead: who is in the audit log). Every outcome starts
// at 0, so a rate over it (and the quota alert) has a series before the first refusal.
export function revealCounter(registry: Registry): Counter<'outcome'> {
  const counter = new Counter({
    name: 'lead_intake_contact_reveals_total',
    help: 'Contact reveals (GET /api/leads/{id}/contact) by outcome: revealed, or refused (no_agent, not_found, erased, quota_exceeded)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of OUTCOMES) counter.inc({ outcome }, 0);
  return counter;
}
