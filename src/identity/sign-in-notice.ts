import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { Clock } from '../shared/clock';
import type { Realm } from './realm-names';
import { isDuplicateKey } from '../shared/mongo/client';
import type { Mailer } from '../shared/mail/mailer';
import { clientNetwork } from '../shared/net/client-network';
import type { AccountBase } from './identity-store';

// One network an account has signed in from, by a digest of both (no address is kept here).
interface SignInNetworkDoc {
  _id: string;
  account_id: string;
  first_at: Date;
}

// Where a notice sends its reader to change their password.
const PAGES: Record<Realm, string> = { manager: '/console/', portal: '/portal/' };

// A mail to the account when it signs in from a network (an IPv4 address, an IPv6 /64) it has not
// signed in from before. The first sign-in of an account sends none: every network is new then.
export class SignInNotice {
  private readonly networks: Collection<SignInNetworkDoc>;

  constructor(
    db: Db,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
  ) {
    this.networks = db.collection<SignInNetworkDoc>('sign_in_networks');
  }

  // `account` as it was before this sign-in was recorded.
  async signedIn(realm: Realm, account: AccountBase, ip: string): Promise<void> {
    const network = clientNetwork(ip);
    const now = this.clock.now();
    const _id = createHash('sha256').update(`${realm}:${account._id}:${network}`).digest('hex');
    try {
      await this.networks.insertOne({ _id, account_id: account._id, first_at: now });
    } catch (err) {
      if (isDuplicateKey(err)) return;
      throw err;
    }
    if (account.last_sign_in_at === null) return;
    await this.mailer.send('new-sign-in', account.email, {
      at: now.toISOString().slice(0, 16).replace('T', ' '),
      network,
      link: this.mailer.link(PAGES[realm]),
    });
  }
}
