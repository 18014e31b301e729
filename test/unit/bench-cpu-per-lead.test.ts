import { cpuPerLead } from '../../bench/lib/cpu-per-lead';

// The bench's headline (issue 31): CPU ms per accepted lead over every server and role, with the
// load generator and the receiver (stand-ins for partners) apart.
describe('CPU ms per accepted lead', () => {
  const cpu = {
    seconds: 20, machineBusyPct: 80, othersPct: 3,
    perProcess: { ingress: 52, processor: 30, dispatcher: 40, 'mongo-wire': 56, kafka: 13, redis: 7, registry: 2, bench: 25, receiver: 9 },
  };

  it('sums every server and role, and shows the generator and the receiver apart', () => {
    // 200 cpu% of one core = 2000 core-ms a second, over 200 leads a second.
    expect(cpuPerLead(cpu, 200)).toEqual({
      service: 10, generator: 1.25, receiver: 0.45,
      byProcess: { ingress: 2.6, processor: 1.5, dispatcher: 2, 'mongo-wire': 2.8, kafka: 0.65, redis: 0.35, registry: 0.1, bench: 1.25, receiver: 0.45 },
    });
  });

  it('gives nothing for a step that accepted nothing', () => {
    expect(cpuPerLead(cpu, 0)).toEqual({ service: null, generator: null, receiver: null, byProcess: {} });
  });
});
