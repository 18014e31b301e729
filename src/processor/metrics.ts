import { Counter, Histogram, type Registry } from 'prom-client';

export interface ProcessorMetrics {
  intakeDecisions: Counter<'outcome' | 'test'>;
  intakeDecisionSeconds: Histogram<string>;
  intakeChunkSize: Histogram<string>;
  leadEvents: Counter<'event' | 'test'>;
  crmMessages: Counter<'topic' | 'outcome'>;
  crmDeadLetters: Counter<'topic' | 'reason'>;
  assignments: Counter<'outcome'>;
  intakeDeadLetters: Counter<string>;
  erasures: Counter<string>;
  capRejections: Counter<'partner_id' | 'scope'>;
  idleReassignments: Counter<'outcome'>;
}

export function processorMetrics(registry: Registry): ProcessorMetrics {
  return {
    intakeDecisions: new Counter({
      name: 'lead_intake_processor_decisions_total',
      help: 'Intake commands decided, by outcome (test: a sandbox partner)',
      labelNames: ['outcome', 'test'],
      registers: [registry],
    }),
    intakeDecisionSeconds: new Histogram({
      name: 'lead_intake_processor_decision_duration_seconds',
      help: 'Time to decide, store and publish one chunk of intake commands',
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    intakeChunkSize: new Histogram({
      name: 'lead_intake_processor_intake_chunk_size',
      help: 'Intake commands decided together in one chunk (a chunk costs the same few database commands whatever its size)',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200],
      registers: [registry],
    }),
    leadEvents: new Counter({
      name: 'lead_intake_lead_events_total',
      help: "Lead events published for callbacks, by event (test: a sandbox partner's lead)",
      labelNames: ['event', 'test'],
      registers: [registry],
    }),
    crmMessages: new Counter({
      name: 'lead_intake_crm_messages_total',
      help: 'CRM messages consumed, by topic and outcome (applied, repeat, dead_lettered)',
      labelNames: ['topic', 'outcome'],
      registers: [registry],
    }),
    crmDeadLetters: new Counter({
      name: 'lead_intake_crm_dead_letters_total',
      help: 'CRM messages sent to the dead-letter topic, by reason',
      labelNames: ['topic', 'reason'],
      registers: [registry],
    }),
    intakeDeadLetters: new Counter({
      name: 'lead_intake_intake_dead_letters_total',
      help: 'Intake commands the processor failed on again and again and sent to the intake dead-letter topic',
      registers: [registry],
    }),
    erasures: new Counter({
      name: 'lead_intake_personal_data_erasures_total',
      help: 'Leads whose personal data was erased (key destroyed, claims, hashes and ciphertexts removed), by a manager or the retention',
      registers: [registry],
    }),
    capRejections: new Counter({
      name: 'lead_intake_cap_rejections_total',
      help: 'Leads rejected over a partner cap (cap_reached:<scope>), by partner and scope',
      labelNames: ['partner_id', 'scope'],
      registers: [registry],
    }),
    idleReassignments: new Counter({
      name: 'lead_intake_idle_reassignments_total',
      help: 'Idle checks of assigned leads not worked for IDLE_REDISTRIBUTION_S: reassigned to another agent, kept (no other agent; checked again later), or moot (worked or changed meanwhile)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    assignments: new Counter({
      name: 'lead_intake_lead_assignments_total',
      help: 'Accepted leads handed to an agent (assigned: at intake or later from waiting) or left waiting for one (no_agent)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}
