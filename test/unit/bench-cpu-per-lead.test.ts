import { byRole, cpuPerLead } from '../../bench/lib/cpu-per-lead';

// The bench's headline: CPU ms per accepted lead over every server and role, with the
// load generator and the receiver (stand-ins for partners) apart.
describe('CPU ms per accepted lead', () => {
  const cpu = {
    seconds: 20,
    machineBusyPct: 80,
    othersPct: 3,
    perProcess: {
      ingress: 52,
      processor: 30,
      dispatcher: 40,
      'mongo-wire': 56,
      kafka: 13,
      redis: 7,
      registry: 2,
      bench: 25,
      receiver: 9,
    },
    systemPerProcess: { ingress: 4, processor: 1, dispatcher: 3, 'mongo-wire': 20, kafka: 2, bench: 1, receiver: 1 },
  };

  it('sums every server and role, shows the generator and the receiver apart, and our roles with their kernel time', () => {
    // 200 cpu% of one core = 2000 core-ms a second, over 200 leads a second.
    expect(cpuPerLead(cpu, 200)).toEqual({
      service: 10,
      generator: 1.25,
      receiver: 0.45,
      byProcess: {
        ingress: 2.6,
        processor: 1.5,
        dispatcher: 2,
        'mongo-wire': 2.8,
        kafka: 0.65,
        redis: 0.35,
        registry: 0.1,
        bench: 1.25,
        receiver: 0.45,
      },
      ours: 6.1,
      oursSystem: 0.4,
    });
  });

  it('gives nothing for a step that accepted nothing', () => {
    expect(cpuPerLead(cpu, 0)).toEqual({
      service: null,
      generator: null,
      receiver: null,
      byProcess: {},
      ours: null,
      oursSystem: null,
    });
  });

  it('sums the instances of a role (--instances)', () => {
    expect(byRole({ ingress: 20, 'ingress#2': 22, processor: 10, 'processor#2': 11.5, kafka: 5 })).toEqual({
      ingress: 42,
      processor: 21.5,
      kafka: 5,
    });
    const two = { ...cpu, perProcess: { ingress: 26, 'ingress#2': 26, 'mongo-wire': 48 } };
    expect(cpuPerLead(two, 100)).toMatchObject({ service: 10, byProcess: { ingress: 5.2, 'mongo-wire': 4.8 } });
  });
});
