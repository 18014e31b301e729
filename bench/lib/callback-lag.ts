import { waitForArrivals } from './arrivals';
import type { Helper } from './roles';
import { summarise, type Summary } from './stats';

export interface CallbackLags {
  lag: Summary;
  byStep: { step: string; lag: Summary }[];
  callbacks: Record<string, number>;
  badSignatures: number;
}

// End to end: from the intake answer to the lead.accepted callback at the partner, waiting until
// every accepted lead has its callback or the deadline (epoch ms) has passed.
export async function callbackLags(
  receiver: Helper,
  accepted: readonly { lead: string; at: number; step: string }[],
  stepLabels: readonly string[],
  deadline: number,
): Promise<CallbackLags> {
  const want = new Map(accepted.map((a) => [a.lead, a]));
  let got = new Set<string>(); // leads with a lead.accepted callback, as of the last read
  const arrivals = await waitForArrivals(
    receiver,
    (all) => {
      got = new Set(all.filter((a) => a.event === 'lead.accepted').map((a) => a.lead));
      return [...want.keys()].every((l) => got.has(l));
    },
    deadline,
    1000,
  );
  const lags: number[] = [];
  const byStep = new Map<string, number[]>(stepLabels.map((s) => [s, []]));
  for (const a of arrivals) {
    const sent = a.event === 'lead.accepted' ? want.get(a.lead) : undefined;
    if (sent === undefined) continue;
    lags.push(a.t - sent.at);
    byStep.get(sent.step)?.push(a.t - sent.at);
  }
  const counts = await receiver.request<{ badSignatures: number }>({ type: 'count' });
  return {
    lag: summarise(lags),
    // Per step too: the dispatcher's backlog of a saturated step shows only in its own row.
    byStep: [...byStep].filter(([, l]) => l.length > 0).map(([step, l]) => ({ step, lag: summarise(l) })),
    callbacks: { acceptedLeads: want.size, leadAcceptedCallbacks: got.size, allCallbacks: arrivals.length },
    badSignatures: counts.badSignatures,
  };
}
