import type {} from '@fastify/session';
import type { SsoPending } from './sso';
import type { PortalRole } from './portal-roles';
import type { Realm } from './realm-names';
import type { Role } from './roles';

// A session's stages: the password was right and a second factor is due; the password was right
// and no second factor is set up yet (only setting one up is allowed); signed in.
export type SessionStage = 'second_factor' | 'enroll' | 'signed_in';

declare module 'fastify' {
  interface Session {
    // The realm the session was made in, checked by each realm's authentication (absent: the manager's).
    realm?: Realm;
    account_id?: string;
    stage?: SessionStage;
    method?: 'password' | 'passkey' | 'sso';
    // When the session was issued (its id made): the absolute timeout counts from it.
    issued_at?: number;
    // Until when a password step may be completed by a second factor, and the wrong ones it has had.
    step_until?: number;
    factor_failures?: number;
    // A snapshot of the account's rights at sign-in: any change of them ends the session.
    role?: Role;
    name?: string;
    partner_ids?: string[];
    agent_id?: string | null;
    // A portal session's rights instead: the partner's person's role and their one partner.
    portal_role?: PortalRole;
    partner_id?: string;
    partner_name?: string;
    // Until when a signed-in session may add or replace a second factor (reauth-routes.ts).
    proven_until?: number;
    // A TOTP secret being set up (encrypted), a WebAuthn challenge, a single sign-on under way.
    totp_setup?: string;
    webauthn_challenge?: string;
    sso?: SsoPending;
    _csrf?: string;
  }
}
