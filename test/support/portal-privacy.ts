import type { SentLead } from './portal-data';

// No personal data beyond the masked phone, no agent, no money, anywhere in an answer.
export function expectNoPrivateData(
  body: unknown,
  known: { leads: SentLead[]; agentId: string; amount: string },
): void {
  const json = JSON.stringify(body);
  for (const lead of known.leads) {
    expect(json).not.toContain(lead.email);
    if (!lead.phone) continue;
    expect(json).not.toContain(lead.phone.slice(1));
    expect(json).not.toContain(lead.phone.slice(3)); // the national number
  }
  expect(json).not.toContain(known.agentId);
  expect(json).not.toContain(known.amount);
  expect(json).not.toMatch(/"[a-z_]*(email|agent|amount|currency)[a-z_]*":/);
}
