import type { IntakeReply } from '../../src/shared/schemas';
import type { Role } from '../../src/identity/roles';
import { byPhone, intakeCommand, produce } from './intake-commands';
import type { ManagerClient } from './manager-client';
import type { TestApp } from './test-app';
import { MANAGER_TOKEN } from './test-config';
import type { TopicProbe } from './topic-probe';
import { until } from './topic-probe';

// Data for the manager's access tests, made through the real pipeline: partners through the API,
// leads through the processor's intake topic, callbacks by the dispatcher to a receiver.

let phones = 0;

// A lead the processor accepted for the partner (a phone of its own: dedup is global): its id and external id.
export async function acceptedLead(
  app: TestApp,
  replies: TopicProbe<IntakeReply>,
  partnerId: string,
  n: number,
): Promise<{ id: string; externalId: string }> {
  const externalId = `ext-${partnerId}-${n}`;
  const cmd = intakeCommand(app.runtime, partnerId, {
    phone: `+4479114${String(10000 + ++phones)}`,
    country_code: 'DE',
    source: 'search',
    external_id: externalId,
  });
  await produce(app.runtime, 'intakeCommands', [cmd], byPhone(app.runtime));
  const rs = await replies.waitFor((all) => all.some((r) => r.correlation_id === cmd.correlation_id));
  const { outcome, lead_id: id } = rs.find((r) => r.correlation_id === cmd.correlation_id)!.decision;
  if (outcome !== 'accepted' || !id) throw new Error(`lead ${externalId} was not accepted: ${outcome}`);
  return { id, externalId };
}

// The ids of the partner's deliveries, once there are at least `count`.
export async function deliveriesOf(manager: ManagerClient, partnerId: string, count: number): Promise<string[]> {
  return until(
    async () => {
      const page = await manager.get<{ items: { id: string }[] }>(`/api/deliveries?affiliate_id=${partnerId}`);
      return page.body.items.length >= count ? page.body.items.map((d) => d.id) : null;
    },
    30000,
    `${count} deliveries of ${partnerId}`,
  );
}

// A service account's token with the role (and partners), made with the break-glass token.
export async function roleToken(
  baseUrl: string,
  role: Role,
  partnerIds: string[] = [],
): Promise<{ id: string; token: string }> {
  const res = await fetch(`${baseUrl}/api/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MANAGER_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `${role} machine`, role, partner_ids: partnerIds, expires_in_days: 1 }),
  });
  const body = (await res.json()) as { id: string; token: string };
  if (res.status !== 201)
    throw new Error(`service account for ${role} answered ${res.status}: ${JSON.stringify(body)}`);
  return { id: body.id, token: body.token };
}
