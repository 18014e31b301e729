import { workPerLead, type Work } from '../../bench/lib/role-metrics';

// What the pipeline asked of the store and of Kafka between two readings, per accepted lead.
describe('work per accepted lead', () => {
  const reading = (documents: number, inserts: number, events: number | null): Work => ({
    documents: new Map([['leads', documents]]),
    commands: new Map([['insert leads', inserts]]),
    messages: events === null ? new Map() : new Map([['leads.events', events]]),
  });

  it('divides what grew by the leads, each kind by its key, and leaves out what did not grow', () => {
    const before = reading(100, 10, 400);
    const after: Work = {
      ...reading(300, 10, 800),
      documents: new Map([
        ['leads', 300],
        ['lead_refs', 200],
      ]),
    };
    expect(workPerLead(after, before, 200)).toEqual({
      writesPerLead: { leads: 1, lead_refs: 1 },
      commandsPerLead: {},
      messagesPerLead: { 'leads.events': 2 },
    });
  });

  it('gives no messages where the topics were not read, and nothing when no lead was accepted', () => {
    expect(workPerLead(reading(2, 2, null), reading(0, 0, null), 2)).toEqual({
      writesPerLead: { leads: 1 },
      commandsPerLead: { 'insert leads': 1 },
    });
    expect(workPerLead(reading(2, 2, 2), reading(0, 0, 0), 0)).toEqual({});
  });
});
