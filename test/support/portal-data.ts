import type { CallbackReceiver, Responder } from './callback-receiver';
import type { ManagerClient } from './manager-client';
import { PartnerClient, type HttpResult } from './partner-client';
import { until } from './topic-probe';

// Partners for the portal's data tests, fed through the real partner API and the whole pipeline:
// each with its callback URL on the test's receiver (at /<name>) answering as `respond` says.
export interface FedPartner {
  id: string;
  name: string;
  api_key: string;
  hmac_secret: string;
  callback_secret: string;
  path: string;
}

export async function receivingPartner(
  manager: ManagerClient,
  receiver: CallbackReceiver,
  name: string,
  respond: Responder,
  settings: object = {},
): Promise<FedPartner> {
  const path = `/${name}`;
  const res = await manager.post<Omit<FedPartner, 'name' | 'path'>>('/api/affiliates', {
    name,
    callback_url: receiver.url(path),
    ...settings,
  });
  if (res.status !== 201) throw new Error(`partner ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  receiver.route(path, res.body.callback_secret, respond);
  return { ...res.body, name, path };
}

let phones = 20000;
// A phone of its own (dedup is global across partners), in E.164.
export const freshPhone = (): string => `+4479113${++phones}`;

export interface SentLead {
  externalId: string;
  phone: string;
  email: string;
  status: string;
  id: string | null;
}

// One lead through the partner API as the partner signs it; its answer's status and id.
export async function sendLead(
  baseUrl: string,
  p: Pick<FedPartner, 'api_key' | 'hmac_secret'>,
  fields: Record<string, unknown>,
): Promise<SentLead & { answer: HttpResult }> {
  const externalId = String(fields.external_id ?? `ext-${Math.random().toString(36).slice(2, 10)}`);
  const phone = 'phone' in fields ? ((fields.phone as string | undefined) ?? '') : freshPhone();
  const email = `${externalId}@lead.example`;
  const body: Record<string, unknown> = { external_id: externalId, phone, email, country: 'GB', ...fields };
  if (body.phone === undefined) delete body.phone; // a lead without one: a validation error
  const answer = await new PartnerClient(baseUrl, p).submitLead(body);
  return {
    externalId,
    phone,
    email,
    status: String(answer.body.status),
    id: (answer.body.id as string | null) ?? null,
    answer,
  };
}

type Delivery = { id: string; event: string; state: string };

// The partner's deliveries once every one is in `state` and `ready` says the set is complete.
export function deliveriesSettled(
  manager: ManagerClient,
  partnerId: string,
  state: string,
  ready: (all: Delivery[]) => boolean,
): Promise<Delivery[]> {
  return until(
    async () => {
      const items = (await manager.get<{ items: Delivery[] }>(`/api/deliveries?affiliate_id=${partnerId}&limit=200`))
        .body.items;
      return items.length > 0 && ready(items) && items.every((d) => d.state === state) ? items : null;
    },
    45_000,
    `the deliveries of ${partnerId} to be ${state}`,
  );
}
