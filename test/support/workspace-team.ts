import type { LeadDoc } from '../../src/shared/mongo/documents';
import { ManagerClient } from './manager-client';
import { PartnerClient } from './partner-client';
import { enrol, invite, type SessionClient } from './session-client';
import type { TestApp } from './test-app';
import { until } from './topic-probe';

// People of the agent workspace made through the API: a supervisor's account, agents naming it (each
// taking one country, so a test knows which agent a lead goes to), and an agent's account linked to
// its record, each signed in with its own session.
export interface Person {
  id: string;
  email: string;
  password: string;
  secret: string;
  client: SessionClient;
}

const PASSWORD = 'a workspace passphrase';
let people = 0;

export async function person(
  app: TestApp,
  role: 'agent' | 'supervisor',
  name: string,
  agentId?: string,
): Promise<Person> {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}.${++people}.${process.pid}@example.com`;
  const invited = await invite(app.url, { email, name, role, ...(agentId ? { agent_id: agentId } : {}) });
  const { client, secret } = await enrol(app.url, invited, PASSWORD);
  return { id: invited.id, email, password: PASSWORD, secret, client };
}

export async function agentRecord(
  manager: ManagerClient,
  name: string,
  country: string,
  supervisorId: string | null,
): Promise<string> {
  const res = await manager.post<{ id: string }>('/api/agents', {
    name,
    countries: [country],
    supervisor_id: supervisorId,
  });
  if (res.status !== 201) throw new Error(`agent answered ${res.status}`);
  return res.body.id;
}

// A partner whose leads the tests send; each lead has a number of its own (dedup is global).
export async function workspacePartner(
  app: TestApp,
  manager: ManagerClient,
  name: string,
): Promise<{ id: string; send: (country: string, n: number) => Promise<{ id: string; phone: string }> }> {
  const created = (
    await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name })
  ).body;
  const client = new PartnerClient(app.url, created);
  const base = 20000 + (process.pid % 500) * 100;
  return {
    id: created.id,
    send: async (country, n) => {
      const phone = country === 'FR' ? `+336123${base + n}` : `+4479112${base + n}`;
      const res = await client.submitLead({
        external_id: `ws-${n}`,
        phone,
        email: `ws${n}@example.com`,
        first_name: `Wanda${n}`,
        last_name: 'Worker',
        country,
        language: country === 'FR' ? 'fr' : 'en',
        source: 'search',
      });
      if (res.body.status !== 'accepted') throw new Error(`lead ${n} was ${String(res.body.status)}`);
      return { id: res.body.id as string, phone };
    },
  };
}

export const leadDoc = (app: TestApp, id: string) =>
  app.runtime.mongo.collections.leads.findOne({ _id: id }) as Promise<LeadDoc>;

export function waitLead(
  app: TestApp,
  id: string,
  what: string,
  ok: (l: LeadDoc) => boolean,
  ms = 20_000,
): Promise<LeadDoc> {
  return until(
    async () => {
      const l = await leadDoc(app, id);
      return l && ok(l) ? l : null;
    },
    ms,
    what,
  );
}
