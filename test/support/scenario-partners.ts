import type { Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import type { CallbackReceiver, Responder } from './callback-receiver';
import { leadEvent } from './lead-events';
import { servicesOf } from './manager-services';

// One partner per scenario, its callbacks answered at /<scenario> as the scenario says, and a fresh
// lead event for each (not yet published).
export async function scenarioPartners(
  rt: Runtime,
  receiver: CallbackReceiver,
  scenarios: Record<string, Responder>,
): Promise<Record<string, LeadEvent>> {
  const events: Record<string, LeadEvent> = {};
  for (const [name, respond] of Object.entries(scenarios)) {
    const { partner, secrets } = await servicesOf(rt).partners.create({ name, callback_url: receiver.url(`/${name}`) });
    receiver.route(`/${name}`, secrets.callback_secret, respond);
    events[name] = leadEvent(partner.id);
  }
  return events;
}
