import type {
  AgentAction,
  AgentSettings,
  Deposit,
  IntakeDecision,
  LeadEvent,
  LeadRecord,
  PartnerSettings,
} from '../schemas';

// The `test` label of every metric that counts leads, requests or callbacks: "true" for a sandbox
// partner's (mode test), so dashboards can leave them out.
export const testLabel = (test: boolean | undefined): 'true' | 'false' => (test ? 'true' : 'false');

// Marks what a sandbox partner's lead leaves in a store; live leads' documents stay as they were.
export const testMark = (test: boolean | undefined): { test?: true } => (test ? { test: true } : {});

// Stored document shapes. MongoDB 7 and FerretDB 1.x both serve them: no TTL indexes (expiry is
// done in code), no transactions (each change that must be atomic touches one document).
export type * from './delivery-doc';

export interface PartnerDoc extends Omit<PartnerSettings, 'callback_url' | 'postbacks'> {
  _id: string; // pa-<hex>
  name: string;
  api_key_hash: string;
  hmac_secret_enc: string;
  callback_secret_enc: string;
  postback_secret_enc?: string; // postbacks.token, sealed; never part of `postbacks`
  callback_url: string | null;
  disabled: boolean;
  created_at: Date;
  updated_at: Date;
  key_rotated_at: Date | null;
  // What a rotation with grace_seconds replaced: still accepted (and, with standard-webhooks, still
  // signed with) until `until`. Absent or null when the last rotation had no grace.
  previous_secrets?: PreviousSecrets | null;
  postbacks?: Omit<NonNullable<PartnerSettings['postbacks']>, 'token'> | null;
}

export interface PreviousSecrets {
  api_key_hash: string;
  hmac_secret_enc: string;
  callback_secret_enc: string;
  until: Date;
}

// One entry per status change, and per change of agent (an erasure takes the lead from its agent).
// Each entry is also the event it announces (none for an idle lead handed to another agent or an
// erasure: the partner hears only of statuses): event_id is "<lead id>:<index in history>", so a
// redelivered change can never yield a second, different event.
export interface StatusChange {
  from: string | null;
  to: string;
  at: Date;
  why: string;
  source: string; // intake | distribution | distribution:<command id> | agent-action:<id> | deposit:<id>
  event: LeadEvent['event'] | null;
  is_depositor: boolean;
  reason?: string;
  agent_id?: string; // the agent the lead was handed to by this entry
  erased?: true; // this entry erased the lead's personal data and took it from its agent (status unchanged)
}

// The lead's optional routing and reporting fields, stored exactly as they arrive in the intake
// command; nothing personal (that stays in personal_enc).
export const LEAD_DETAIL_FIELDS = [
  'country',
  'country_code',
  'language',
  'source',
  'funnel',
  'sub_id',
  'click_id',
  'landing_url',
] as const;

type LeadDetails = Pick<LeadRecord, (typeof LEAD_DETAIL_FIELDS)[number]>;

export interface LeadDoc extends LeadDetails {
  _id: string; // le-<n>
  seq: number;
  partner_id: string;
  external_id: string;
  idempotency_key: string;
  status: string;
  is_depositor: boolean;
  client_id: string | null;
  agent_id: string | null;
  reason: string | null;
  // When its agent is to call it back (an agent action's callback_at); null or absent: none scheduled.
  callback_at?: Date | null;
  // Every change, in order; entry i is also event `<lead id>:<i>`, and its `source` names the CRM
  // message that made it, so a redelivered message is recognised without a list of applied ids.
  history: StatusChange[];
  // Sealed with the lead's own data key (lead_keys_<day>); all five are removed when the lead's
  // personal data is erased (personal_erased_at), the key destroyed first.
  phone_enc?: string;
  phone_hash?: string;
  email_enc?: string | null;
  email_hash?: string | null;
  personal_enc?: string; // names, IP, user agent, metadata: personal-data.json, encrypted
  personal_erased_at?: Date;
  risk?: LeadRisk;
  test?: true; // a sandbox partner's lead: never claimed dedup keys, never distributed
  created_at: Date;
  updated_at: Date;
}

// Fraud signals found at intake: a score from 0 to 100 and the reasons that make it up.
export interface LeadRisk {
  score: number;
  reasons: string[];
  ip_country: string | null; // where the lead's IP is, when known
}

// A lead's own data key, wrapped by the keyring; one collection per UTC day of the lead's creation.
export interface LeadKeyDoc {
  _id: string; // lead id
  dek_enc: string;
  key_ref?: string; // the key's intake reference (intake-keys.ts): destroyed with it
  created_at: Date;
  test?: true;
}

// An API key hash that authenticates, and its partner (partner-keys.ts).
export interface PartnerKeyDoc {
  _id: string; // api key hash
  partner_id: string;
  created_at: Date;
}

// A lead's data key (wrapped by the keyring) while its intake command is retained on Kafka; one
// collection per UTC hour (intake_keys_<yyyymmddhh>), dropped whole after INTAKE_KEY_HOURS.
export interface IntakeKeyDoc {
  _id: string; // ik-<yyyymmddhh>-<random>: the reference the command carries
  dek_enc: string;
  created_at: Date;
}

// The partner's name for a lead: one per (partner, external_id), so it is both the uniqueness of
// external ids and the status lookup's point read.
export interface LeadRefDoc {
  _id: string; // <partner id>:<external id>
  lead_id: string;
  owner: string; // <partner id>:<idempotency key> of the command that made it
  created_at: Date;
  test?: true;
}

// A lead accepted while no agent could take it: small (only waiting leads), read whole when agents
// change, removed when the lead is assigned.
export interface WaitingLeadDoc {
  _id: string; // lead id
  partner_id: string;
  country_code?: string;
  language?: string;
  since: Date;
}

// When each agent last got a lead (round robin), written by the processors only, so a manager's
// change to the agent itself is never overwritten by a busy distribution.
export interface AgentActivityDoc {
  _id: string; // agent id
  last_assigned_at: Date;
}

// A CRM message that cannot apply yet (its lead is not created yet, a chargeback before the first
// deposit): kept, with its original bytes, until it applies or its time is up (then dead-lettered).
export interface ParkedMessageDoc {
  _id: string; // <topic key>:<action_id | deposit_id>
  lead_id: string;
  topic: 'agentActions' | 'deposits';
  value: AgentAction | Deposit;
  reason: string;
  source: { partition: number; offset: string; key: string | null; value: string }; // key and value in base64
  parked_at: Date;
}

export interface DedupClaimDoc {
  _id: string; // <scope>:<phone|email>:<hash>
  lead_id: string;
  owner: string; // <partner id>:<idempotency key> of the command that claimed it
  claimed_at: Date;
}

// Stored in one collection per UTC day (intake_decisions_<yyyymmdd>), dropped whole once older than
// the idempotency window: bounded without TTL indexes or scans.
export interface IntakeDecisionDoc extends IntakeDecision {
  _id: string; // <partner id>:<idempotency key>
  partner_id: string;
  decided_at: Date;
  test?: true;
}

export interface IdBlockDoc {
  _id: string; // "<sequence name>:<block number>"
  sequence: string;
  block: number;
  first?: number; // the numbers it hands out: [first, end); absent on blocks taken before they were recorded
  end?: number;
  taken_at: Date;
}

export interface AgentDoc extends AgentSettings {
  _id: string; // ag-<hex>
  name: string;
  active: boolean;
  countries: string[];
  languages: string[];
  created_at: Date;
  updated_at: Date;
}

export interface ClientDoc {
  _id: string; // cl-<lead number>: one client per lead, whatever the redeliveries
  lead_id: string;
  partner_id: string;
  first_deposit_id: string;
  created_at: Date;
  test?: true;
}

export interface DepositDoc {
  _id: string; // the CRM's deposit_id
  lead_id: string;
  client_id: string | null;
  type: 'deposit' | 'chargeback';
  amount: string;
  currency: string;
  occurred_at: Date;
  recorded_at: Date;
  test?: true;
}

// A partner endpoint's health and pause state, one per partner, written only by the dispatcher that
// owns the partner's partition of callbacks.endpoints, from the reports every dispatcher sends.
export interface EndpointHealthDoc {
  _id: string; // partner id
  state: 'active' | 'paused';
  paused_at: Date | null;
  resumed_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null; // the first failure after the last success
  last_success_at: Date | null;
  last_failure_at: Date | null;
  gone_at: Date | null; // the last 410 Gone, while no success came after it
  hours: { hour: number; ok: number; failed: number }[]; // attempts per hour (epoch hours), the last 24
  held: Record<string, number>; // deliveries held while paused, by lead partition
  updated_at: Date;
}

// A manager's replay of a partner's callbacks over a time range, run by the endpoint's dispatcher.
export interface ReplayJobDoc {
  _id: string; // rp-<hex>
  partner_id: string;
  partition: number; // of the partner on callbacks.endpoints: its owner runs the job
  from: Date;
  to: Date;
  events: string[]; // empty: all
  state: 'queued' | 'running' | 'done' | 'failed';
  found: number;
  sent: number; // replay commands published so far
  cursor?: string | null; // where in the delivery list a restarted job goes on from (absent: from the start)
  requested_by: string;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  error: string | null;
}

export interface AuditDoc {
  _id: string;
  at: Date;
  actor: string; // an account, service account or break-glass id, or system:<role>
  // Absent on entries written before people had accounts.
  actor_name?: string;
  auth_method?: string;
  client_address?: string | null;
  action: string;
  partner_id: string | null;
  target: string | null;
  details: Record<string, unknown>;
}
