import type { Collection, Db } from 'mongodb';
import type { AlertKind, Recipient } from './alert-kinds';
import type { AlertPreferences } from './alert-preferences';

// The few fields of an account (either realm, one collection) that say who may be told of a partner.
interface AccountFields {
  _id: string;
  realm?: 'manager' | 'portal';
  email: string;
  status: 'invited' | 'active' | 'disabled';
  partner_id?: string; // a partner's person
  partner_ids?: string[]; // a manager's partners
  time_zone?: string | null; // a partner's person's own
}

// Who is told of a partner: its active people, and the active managers who look after it (their
// partner_ids name it), each with the kinds they chose.
export class AlertRecipients {
  private readonly accounts: Collection<AccountFields>;

  constructor(
    db: Db,
    private readonly preferences: AlertPreferences,
  ) {
    this.accounts = db.collection<AccountFields>('accounts');
  }

  async of(partnerId: string): Promise<Recipient[]> {
    const projection = { _id: 1, realm: 1, email: 1, time_zone: 1 };
    const [people, managers] = await Promise.all([
      this.accounts.find({ realm: 'portal', partner_id: partnerId, status: 'active' }, { projection }).toArray(),
      this.accounts
        .find({ realm: { $ne: 'portal' }, partner_ids: partnerId, status: 'active' }, { projection })
        .toArray(),
    ]);
    const all = [...people, ...managers];
    const kinds = await this.preferences.ofMany(all.map((a) => a._id));
    return all.map((a) => ({
      accountId: a._id,
      realm: a.realm === 'portal' ? 'portal' : 'manager',
      email: a.email,
      kinds: kinds.get(a._id) ?? [],
      timeZone: a.time_zone ?? null,
    }));
  }

  // The partners some active person chose a kind for (the opt-in summary): read from the choosers.
  async partnersChoosing(kind: AlertKind): Promise<string[]> {
    const ids = await this.preferences.chose(kind);
    if (ids.length === 0) return [];
    const found = await this.accounts
      .find({ _id: { $in: ids }, status: 'active' }, { projection: { partner_id: 1, partner_ids: 1 } })
      .toArray();
    return [...new Set(found.flatMap((a) => (a.partner_id ? [a.partner_id] : (a.partner_ids ?? []))))].sort();
  }
}
