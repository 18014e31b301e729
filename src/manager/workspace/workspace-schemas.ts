import { PAGE_QUERY } from '../pagination';
import {
  answers,
  BODY_ERRORS,
  dateTime,
  ID_ERRORS,
  idParam,
  idParams,
  nullable,
  object,
  str,
} from '../../shared/http/schema-parts';
import { QUEUE_CURSOR_PATTERN } from './agent-queue-reader';
import { OUTCOME_STATUS, OUTCOMES } from './outcomes';

// Route schemas of the agent workspace (an agent's queue, lead cards and outcomes; a supervisor's
// team). A lead's number is only ever masked here; never an amount.
const WORKSPACE = ['workspace'];
const NOT_AN_AGENT = 409; // conflict: the account works as no agent record

const phone = nullable('string', {
  description:
    'Masked (+44 79** ***456): the country code, two digits and the last three. The whole number: GET /api/leads/{id}/contact (audited). null once erased',
});
const callbackAt = nullable('string', {
  format: 'date-time',
  description: 'When the agent is to call the lead back (null: no callback scheduled)',
});
const queueItem = object({
  id: str,
  affiliate_id: str,
  status: str,
  queue: {
    enum: ['callback_due', 'new', 'worked', 'callback_later'],
    description: 'The part of the queue the lead is in, in this order',
  },
  callback_at: callbackAt,
  is_depositor: { type: 'boolean' },
  country_code: nullable('string'),
  language: nullable('string'),
  source: nullable('string'),
  phone,
  created_at: dateTime,
  updated_at: dateTime,
});
const queuePage = object({ items: { type: 'array', items: queueItem }, next_cursor: nullable('string') });
const queueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: PAGE_QUERY.limit,
    cursor: {
      type: 'string',
      pattern: QUEUE_CURSOR_PATTERN,
      description: 'next_cursor of the page before (URL-encoded)',
    },
  },
} as const;

const historyEntry = object(
  {
    event_id: nullable('string'),
    event: nullable('string'),
    from: nullable('string'),
    to: str,
    at: dateTime,
    why: str,
    source: str,
    reason: nullable('string'),
    agent_id: { type: 'string', description: 'The agent this change handed the lead to' },
  },
  ['event_id', 'event', 'from', 'to', 'at', 'why', 'source', 'reason'],
);
const leadCard = object({
  id: str,
  affiliate_id: str,
  partner_name: nullable('string'),
  status: str,
  is_depositor: { type: 'boolean', description: 'Whether the lead deposited (never an amount)' },
  agent_id: nullable('string'),
  personal_data: { enum: ['kept', 'erased'] },
  country: nullable('string'),
  country_code: nullable('string'),
  language: nullable('string'),
  source: nullable('string'),
  funnel: nullable('string'),
  phone,
  callback_at: callbackAt,
  outcomes: {
    type: 'array',
    items: { enum: OUTCOMES },
    description: "The outcomes the status catalogue allows from the lead's status",
  },
  history: { type: 'array', items: historyEntry },
  created_at: dateTime,
  updated_at: dateTime,
});

export const workspaceSchemas = {
  myQueue: {
    tags: WORKSPACE,
    summary:
      "An agent's queue: callbacks due (most overdue first), new assignments, the other open leads oldest first, then callbacks scheduled later; never another agent's lead",
    querystring: queueQuery,
    response: answers({ 200: queuePage }, 422, NOT_AN_AGENT),
  },
  leadCard: {
    tags: WORKSPACE,
    summary:
      "One of the agent's leads: partner, country, language, source, history, depositor flag, the number masked and the outcomes allowed",
    params: idParams,
    response: answers({ 200: leadCard }, ...ID_ERRORS, NOT_AN_AGENT),
  },
  recordOutcome: {
    tags: WORKSPACE,
    summary:
      "Record an outcome of one of the agent's leads: published on crm.agent-actions as a CRM's agent action, applied by the lead's owner",
    params: idParams,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['outcome'],
      properties: {
        outcome: {
          enum: OUTCOMES,
          description: `The status each publishes: ${Object.entries(OUTCOME_STATUS)
            .map(([o, s]) => `${o} → ${s}`)
            .join(', ')}`,
        },
        callback_at: {
          ...dateTime,
          description: 'A callback only, and required: when to call back (not in the past, at most a year ahead)',
        },
      },
    },
    response: answers(
      {
        202: object({
          action_id: str,
          lead_id: str,
          outcome: { enum: OUTCOMES },
          status: str,
          callback_at: nullable('string', { format: 'date-time' }),
        }),
      },
      ...ID_ERRORS,
      ...BODY_ERRORS,
      409,
    ),
  },
  teamQueues: {
    tags: WORKSPACE,
    summary: "A supervisor's team (the agents naming their account) with the first page of each agent's queue",
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Leads per agent' } },
    },
    response: answers(
      {
        200: object({
          agents: {
            type: 'array',
            items: object({ id: str, name: str, active: { type: 'boolean' }, queue: queuePage }),
          },
        }),
      },
      422,
    ),
  },
  teamAgentQueue: {
    tags: WORKSPACE,
    summary: "One agent of the supervisor's team: a page of its queue (404 for an agent of another team)",
    params: idParams,
    querystring: queueQuery,
    response: answers({ 200: queuePage }, ...ID_ERRORS),
  },
  reassignLead: {
    tags: WORKSPACE,
    summary:
      "Give a lead of the supervisor's team to another active agent of the team: a reassign command to the lead's owner, audited; the assignment feed says reassigned",
    params: idParams,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['agent_id'],
      properties: { agent_id: { ...idParam, description: 'An active agent of the team' } },
    },
    response: answers(
      { 202: object({ lead_id: str, from_agent_id: str, to_agent_id: str, requested_at: dateTime }) },
      ...ID_ERRORS,
      ...BODY_ERRORS,
      409,
    ),
  },
} as const;
