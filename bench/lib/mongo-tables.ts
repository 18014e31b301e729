import type { Table } from './context';
import type { PatternResult } from './mongo-pattern';

// The mongo scenario's tables: the three patterns side by side, then each one's commands.
export function mongoTables(
  mongoUrl: string,
  chunk: number,
  results: { processor: PatternResult; lifecycle: PatternResult; dispatcher: PatternResult },
): Table[] {
  const { processor: p, lifecycle: life, dispatcher: dsp } = results;
  const opRows = (r: PatternResult) =>
    Object.entries(r.opsPerUnit).map(([op, per]) => [
      op,
      per,
      r.opMs[op]?.p50 ?? null,
      r.opMs[op]?.p99 ?? null,
      r.trend[op]?.firstWindowP50 ?? null,
      r.trend[op]?.lastWindowP50 ?? null,
    ]);
  const opColumns = (unit: string) => [
    'command (collection, filter fields)',
    `per ${unit}`,
    'p50 ms',
    'p99 ms',
    'p50 first window',
    'p50 last window',
  ];
  return [
    {
      title: `MongoDB-wire server (${mongoUrl}) under the processor's and dispatcher's exact access pattern (no Kafka)`,
      columns: [
        'pattern',
        'concurrency',
        'units',
        'units/s',
        'unit p50 ms',
        'unit p99 ms',
        'db cpu%',
        'redis cpu%',
        'others cpu%',
      ],
      rows: (
        [
          [`processor: chunks of ${chunk} leads decided, stored, assigned`, p],
          [`lead owner: chunks of ${chunk} agent actions applied`, life],
          ['dispatcher: delivery created+recorded', dsp],
        ] as const
      ).map(([label, r]) => [
        label,
        r.concurrency,
        r.units,
        r.perS,
        r.unitMs.p50,
        r.unitMs.p99,
        r.cpu['mongo-wire'] ?? null,
        r.cpu.redis ?? null,
        r.othersPct,
      ]),
      note: 'units are leads (processor, lead owner) and deliveries (dispatcher); units/s is the ceiling the database puts on them, whatever Kafka and HTTP can do; unit p50/p99 are per call: a chunk for the chunked patterns',
    },
    {
      title: 'Database commands per lead (processor intake pattern)',
      columns: opColumns('lead'),
      rows: opRows(p),
      note: `stages p50 per chunk of ${chunk}: decide ${p.stageMs.decide?.p50} ms, store decisions ${p.stageMs.store?.p50} ms`,
    },
    {
      title: 'Database commands per agent action (lead owner pattern)',
      columns: opColumns('action'),
      rows: opRows(life),
    },
    {
      title: 'Database commands per delivery (dispatcher pattern)',
      columns: opColumns('delivery'),
      rows: opRows(dsp),
    },
    {
      title: 'As the collections grow (processor pattern, per window)',
      columns: ['until s', 'commands so far', 'leads/s', 'find p50 ms', 'insert p50 ms', 'update p50 ms'],
      rows: p.windows.map((w) => [w.untilS, w.totalDocs, w.perS, w.findP50, w.insertP50, w.updateP50]),
    },
  ];
}
