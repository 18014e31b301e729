import type { OffsetDelta, WriterChunk } from '../../shared/reports/cell-store';
import type { Writer } from '../../shared/reports/cell-keys';
import type { ReportDelta } from '../../shared/schemas';

// The reports' repartition (reports.deltas, keyed by partner id), pure both ways. Lead events are
// keyed by lead, refusals by partner, and every partner's counts go to its own counter documents: the
// reading side publishes what each source partition's chunk adds, per partner, and the projector of
// the partner's partition is then the one writer of those documents (report-cell-consumer.ts).

// What a chunk adds, as one message per source partition and partner, its deltas in offset order.
export function deltaMessages(chunks: readonly Pick<WriterChunk, 'writer' | 'deltas'>[]): ReportDelta[] {
  const out = new Map<string, ReportDelta>();
  for (const { writer, deltas } of chunks) {
    for (const d of [...deltas].sort((a, b) => a.offset - b.offset)) {
      const key = `${writer} ${d.partnerId}`;
      let message = out.get(key);
      if (!message) out.set(key, (message = { partner_id: d.partnerId, writer, deltas: [] }));
      message.deltas.push({ offset: d.offset, day: d.day, field: d.field, counts: d.delta });
    }
  }
  return [...out.values()];
}

// The messages of a chunk of the repartition topic, as one writer chunk per source partition and
// partner. A source chunk read again (a crash before its offsets moved, a send sent again whole)
// is published again: its deltas then come again after themselves, in the same order, and only
// those past the highest offset already seen of their source partition and partner are kept; the
// counter documents refuse those they applied before (their `o.<writer>`, cell-store.ts).
export function writerChunks(messages: readonly ReportDelta[]): WriterChunk[] {
  const out = new Map<string, { chunk: WriterChunk; deltas: OffsetDelta[] }>();
  for (const m of messages) {
    const key = `${m.writer} ${m.partner_id}`;
    let entry = out.get(key);
    if (!entry) {
      const deltas: OffsetDelta[] = [];
      entry = { chunk: { writer: m.writer as Writer, deltas, lastOffset: -1 }, deltas };
      out.set(key, entry);
    }
    for (const d of m.deltas) {
      if (d.offset <= entry.chunk.lastOffset) continue;
      entry.deltas.push({ offset: d.offset, day: d.day, partnerId: m.partner_id, field: d.field, delta: d.counts });
      entry.chunk.lastOffset = d.offset;
    }
  }
  return [...out.values()].map((e) => e.chunk);
}
