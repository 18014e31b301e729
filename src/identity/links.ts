import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock';
import type { Realm } from './realm-names';
import type { AccountLinkDoc, IdentityCollections } from './identity-store';

export const LINK_TTL_MS = 24 * 3600 * 1000;

export type LinkKind = AccountLinkDoc['kind'];

// A realm's links are digested apart, so a portal link means nothing to the manager's routes and back.
const digest = (realm: Realm, token: string): string =>
  createHash('sha256')
    .update(`${realm === 'manager' ? 'account' : realm}-link:${token}`)
    .digest('hex');

// A link as its maker sees it, once: the token, where it opens the pages, and the whole URL when the
// pages' address (`base`) is known.
export function linkAnswer(
  made: { token: string; expires_at: Date },
  path: (token: string) => string,
  base: string | null,
) {
  return {
    token: made.token,
    path: path(made.token),
    url: base ? `${base.replace(/\/$/, '')}${path(made.token)}` : null,
    expires_at: made.expires_at,
  };
}

// One-time links: an invitation sets the first password of an account, a reset sets a new one.
// The token is shown once to the person who made it; only its digest is kept. A link is used by a
// conditional write (used_at still null), so it works once, and not after 24 hours.
export class OneTimeLinks {
  constructor(
    private readonly c: IdentityCollections,
    private readonly clock: Clock,
    private readonly realm: Realm = 'manager',
  ) {}

  async create(kind: LinkKind, accountId: string, by: string): Promise<{ token: string; expires_at: Date }> {
    const token = `${kind === 'invitation' ? 'inv' : 'rst'}_${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    const expires_at = new Date(now.getTime() + LINK_TTL_MS);
    await this.c.links.insertOne({
      _id: digest(this.realm, token),
      kind,
      account_id: accountId,
      created_at: now,
      created_by: by,
      expires_at,
      used_at: null,
    });
    return { token, expires_at };
  }

  // The link a token names while it may still be used, without using it.
  async peek(token: string): Promise<AccountLinkDoc | null> {
    const link = await this.c.links.findOne({ _id: digest(this.realm, token) });
    return link && link.used_at === null && link.expires_at > this.clock.now() ? link : null;
  }

  // Uses the link: the account it was for, or null when it is unknown, used or expired.
  async use(token: string): Promise<AccountLinkDoc | null> {
    const link = await this.peek(token);
    if (!link) return null;
    const used = await this.c.links.updateOne(
      { _id: link._id, used_at: null },
      { $set: { used_at: this.clock.now() } },
    );
    return used.modifiedCount === 1 ? link : null;
  }

  // Ends every link of the account still open: a password just set makes an older invitation or reset moot.
  async endAll(accountId: string): Promise<void> {
    await this.c.links.updateMany({ account_id: accountId, used_at: null }, { $set: { used_at: this.clock.now() } });
  }
}
