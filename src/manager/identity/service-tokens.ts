import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock';
import type { IdentityCollections, ServiceTokenDoc } from '../../identity/identity-store';
import type { Role } from '../../identity/roles';

// Service accounts' tokens start with this, so a leaked one is recognised (secret scanners, logs).
export const TOKEN_PREFIX = 'lit_';
// How often last_used_at is written for a token in constant use.
const LAST_USED_EVERY_MS = 60_000;

const digest = (token: string): string => createHash('sha256').update(`service-token:${token}`).digest('hex');

export type ServiceTokenView = Omit<ServiceTokenDoc, '_id'>;

export function serviceTokenView(doc: ServiceTokenDoc): ServiceTokenView {
  const { _id, ...rest } = doc;
  return rest;
}

export interface NewServiceToken {
  name: string;
  role: Role;
  partner_ids: string[];
  expires_in_days: number;
}

// Machines' credentials (the CLI, a CRM): shown once, stored as a digest, each with a role and an
// expiry, revocable; found by the digest of the token presented (a point read).
export class ServiceTokens {
  constructor(
    private readonly c: IdentityCollections,
    private readonly clock: Clock,
  ) {}

  async create(t: NewServiceToken, by: string): Promise<{ token: string; doc: ServiceTokenDoc }> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    const doc: ServiceTokenDoc = {
      _id: digest(token),
      id: `sa-${randomBytes(8).toString('hex')}`,
      name: t.name,
      role: t.role,
      partner_ids: t.partner_ids,
      prefix: token.slice(0, TOKEN_PREFIX.length + 6),
      created_at: now,
      created_by: by,
      expires_at: new Date(now.getTime() + t.expires_in_days * 86400_000),
      last_used_at: null,
      revoked_at: null,
    };
    await this.c.serviceTokenIds.insertOne({ _id: doc.id, account_id: doc._id });
    await this.c.serviceTokens.insertOne(doc);
    return { token, doc };
  }

  // The live token presented, or null (unknown, expired or revoked).
  async authenticate(token: string): Promise<ServiceTokenDoc | null> {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const doc = await this.c.serviceTokens.findOne({ _id: digest(token) });
    const now = this.clock.now();
    if (!doc || doc.revoked_at !== null || doc.expires_at <= now) return null;
    if (!doc.last_used_at || now.getTime() - doc.last_used_at.getTime() > LAST_USED_EVERY_MS) {
      await this.c.serviceTokens.updateOne({ _id: doc._id }, { $set: { last_used_at: now } });
    }
    return doc;
  }

  // The tokens, newest first: a few dozen machines at most.
  async list(): Promise<ServiceTokenDoc[]> {
    const docs = await this.c.serviceTokens.find({}).limit(5000).toArray();
    return docs.sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
  }

  async find(id: string): Promise<ServiceTokenDoc | null> {
    const ref = await this.c.serviceTokenIds.findOne({ _id: id });
    return ref ? this.c.serviceTokens.findOne({ _id: ref.account_id }) : null;
  }

  async revoke(id: string): Promise<ServiceTokenDoc | null> {
    const doc = await this.find(id);
    if (!doc) return null;
    return this.c.serviceTokens.findOneAndUpdate(
      { _id: doc._id },
      { $set: { revoked_at: doc.revoked_at ?? this.clock.now() } },
      { returnDocument: 'after' },
    );
  }
}
