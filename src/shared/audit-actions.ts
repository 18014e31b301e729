// Every action the audit log records (also the console's filter: this module imports nothing).
export const AUDIT_ACTIONS = [
  'partner.create', 'partner.update', 'partner.rotate_key', 'partner.test_callback', 'partner.test_postback', 'partner.replay',
  'endpoint.paused', 'endpoint.resume',
  'delivery.retry', 'delivery.retry_dead', 'agent.create', 'agent.update', 'lead.erase_personal_data', 'lead.contact_reveal', 'lead.reassign',
  'account.sign_in', 'account.sign_in_failed', 'account.locked', 'account.sign_out', 'account.sessions_revoked',
  'account.invite', 'account.update', 'account.password_reset_link', 'account.password_set',
  'account.second_factor_added', 'account.second_factor_removed',
  'service_account.create', 'service_account.revoke',
  // A partner's people in the portal (each entry carries their partner, so the partner's manager sees it).
  'portal.sign_in', 'portal.sign_in_failed', 'portal.locked', 'portal.sign_out', 'portal.password_set', 'portal.second_factor_added',
  'portal.user.invite', 'portal.user.disable',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
