import { exportRange } from '../../src/portal/api/routes/lead-export-range';
import { leadCsv } from '../../src/portal/api/routes/lead-export';
import type { PartnerLeadRow, PartnerReads } from '../../src/portal/api/partner-reads';

// The lead CSV is written a page at a time: the next page of the list is read only once the one
// before was taken, so an export of a million leads holds one page, and a client that goes away
// stops the reading.
const row = (n: number): PartnerLeadRow => ({
  id: `le-${n}`,
  external_id: n === 1 ? '=HYPERLINK("x")' : `ext-${n}`,
  status: 'new',
  our_status: 'new',
  is_depositor: false,
  reason: null,
  country: 'GB',
  source: null,
  phone: '+44 79** ***456',
  test: false,
  created_at: new Date(Date.UTC(2026, 10, 1)),
  updated_at: new Date(Date.UTC(2026, 10, 1)),
});

function pagedReads(pages: number) {
  const asked: (string | undefined)[] = [];
  const reads = {
    leads: async (_p: unknown, _q: unknown, req: { cursor?: string }) => {
      asked.push(req.cursor);
      const n = asked.length;
      return { items: [row(n)], next_cursor: n < pages ? `c${n}` : null };
    },
  } as unknown as PartnerReads;
  return { reads, asked };
}

it('reads a page only when the one before was taken, and stops when the client goes', async () => {
  const { reads, asked } = pagedReads(1_000_000);
  const csv = leadCsv(reads, { _id: 'pa-1', status_mapping: {} }, {}, 'UTC');
  expect((await csv.next()).value).toMatch(/^id,external_id,status,our_status,/);
  expect(asked).toEqual([]);
  const first = (await csv.next()).value as string;
  expect(first).toContain(
    `le-1,"'=HYPERLINK(""x"")",new,new,false,,GB,,'+44 79** ***456,false,2026-11-01T00:00:00.000Z`,
  );
  expect(asked).toEqual([undefined]);
  await csv.next();
  expect(asked).toEqual([undefined, 'c1']);
  await csv.return(undefined);
  expect(await csv.next()).toEqual({ done: true, value: undefined });
  expect(asked).toHaveLength(2);
});

it('ends after the last page', async () => {
  const { reads } = pagedReads(3);
  const lines: string[] = [];
  for await (const chunk of leadCsv(reads, { _id: 'pa-1', status_mapping: {} }, {}, 'UTC')) lines.push(chunk);
  expect(lines).toHaveLength(4);
});

it("writes times in the person's time zone", async () => {
  const { reads } = pagedReads(1);
  const lines: string[] = [];
  for await (const chunk of leadCsv(reads, { _id: 'pa-1', status_mapping: {} }, {}, 'Asia/Tokyo')) lines.push(chunk);
  expect(lines[1]).toContain(',2026-11-01T09:00:00.000+09:00');
});

it('takes a range of at most 31 days that runs forwards', () => {
  expect(() => exportRange('2026-11-01T00:00:00Z', '2026-12-02T00:00:00Z')).not.toThrow();
  expect(() => exportRange('2026-11-01T00:00:00Z', '2026-12-02T00:00:01Z')).toThrow('at most 31 days');
  expect(() => exportRange('2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z')).toThrow('from must be before to');
});
