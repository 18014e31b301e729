import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../../src/shared/runtime';
import type { CallbackReceiver, Responder } from './callback-receiver';
import type { PartnerCredentials } from './partner-client';
import { servicesOf } from './manager-services';

export const DRILL_PATH = '/drill';

// The env of every drill: short schedules, so a fault and its repair fit in seconds.
export const DRILL_ENV: Record<string, string> = {
  CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
  CALLBACK_TIMEOUT_MS: '2000',
  DISTRIBUTION_INTERVAL_MS: '300',
  INTAKE_REPLY_TIMEOUT_MS: '3000',
};

// For the process a drill kills: its dead consumers hold their partitions only this long (the
// broker's minimum). Not for the survivors: on a loaded 2-core machine a slow batch of theirs
// could outlast it and cost them their membership.
export const KILLED_ROLE_ENV: Record<string, string> = { KAFKA_SESSION_TIMEOUT_MS: '6000' };

// One lead event as the drill receiver tells them apart: lead and status.
export const drillEventOf = (body: Record<string, unknown> | undefined): string =>
  `${String(body?.internal_id)}|${String(body?.our_status)}`;

// The events whose first attempt the drill receiver refuses: about a third, the same in every run.
export const refusedFirst = (event: string): boolean => createHash('sha256').update(event).digest()[0]! % 3 === 0;

// A partner's receiver that is a little slow (attempts are in flight when something dies) and
// refuses the first attempt of about a third of the events with a 503 (the retry topics carry work too).
function flakyReceiver(receiver: CallbackReceiver, path = DRILL_PATH): Responder {
  const refused = new Set<string>();
  return (_req: IncomingMessage, res: ServerResponse, nth: number) => {
    const got = receiver.at(path)[nth - 1];
    const event = drillEventOf(got?.body);
    const refuse = refusedFirst(event) && !refused.has(event);
    if (refuse) refused.add(event);
    setTimeout(() => {
      if (!res.writableEnded) res.writeHead(refuse ? 503 : 200).end(refuse ? 'later' : 'ok');
    }, 50);
  };
}

// A partner with a callback URL on the receiver, every event, and quotas high enough for a drill.
export async function drillPartner(
  rt: Runtime,
  receiver: CallbackReceiver,
  name = 'Drill',
): Promise<{ id: string; creds: PartnerCredentials }> {
  const { partner, secrets } = await servicesOf(rt).partners.create({
    name,
    callback_url: receiver.url(DRILL_PATH),
    rate_limits: { intake_per_minute: 100000, status_per_minute: 100000 },
  });
  receiver.route(DRILL_PATH, secrets.callback_secret, flakyReceiver(receiver));
  await rt.mongo.collections.agents.insertOne({
    _id: `ag-${partner.id.slice(3)}`,
    name: 'Drill agent',
    active: true,
    countries: [],
    languages: [],
    created_at: new Date(),
    updated_at: new Date(),
  });
  return { id: partner.id, creds: secrets };
}
