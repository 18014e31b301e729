// The leads whose first waiting delivery is held because their partner's endpoint is paused, per
// partner in the order they were held: on resume they go in that order. Keys are
// "<partner id>:<lead id>", with the lead's partition.
export class ParkedLeads {
  private readonly byPartner = new Map<string, Map<string, number>>();

  add(partnerId: string, key: string, partition: number): void {
    const leads = this.byPartner.get(partnerId) ?? new Map<string, number>();
    leads.set(key, partition);
    this.byPartner.set(partnerId, leads);
  }

  // The partner's `n` longest-held leads (or fewer), taken out.
  take(partnerId: string, n: number): { key: string; partition: number }[] {
    const leads = this.byPartner.get(partnerId);
    const taken: { key: string; partition: number }[] = [];
    for (const [key, partition] of leads ?? []) {
      if (taken.length >= n) break;
      taken.push({ key, partition });
    }
    for (const { key } of taken) leads?.delete(key);
    if (leads?.size === 0) this.byPartner.delete(partnerId);
    return taken;
  }

  // Held deliveries by partner and partition: each parked lead's first delivery and those behind it.
  counts(heldBehind: (key: string) => number): Map<string, Record<string, number>> {
    const out = new Map<string, Record<string, number>>();
    for (const [partnerId, leads] of this.byPartner) {
      const counts: Record<string, number> = {};
      for (const [key, partition] of leads)
        counts[String(partition)] = (counts[String(partition)] ?? 0) + 1 + heldBehind(key);
      out.set(partnerId, counts);
    }
    return out;
  }
}
