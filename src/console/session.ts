import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Permission, Role } from '../identity/roles';

// What GET /api/session says of this browser's session (the server's session-actions.ts).
export interface Session {
  stage: 'second_factor' | 'enroll' | 'signed_in' | null;
  account: { id: string; name: string; role: Role; partner_ids: string[]; method: string } | null;
  permissions: Permission[];
  csrf_token: string;
  // Given by the password step: which second factors the account has.
  second_factors?: { totp: boolean; passkey: boolean };
}

export const SessionContext = createContext<Session | null>(null);

// Whether the signed-in role may do something: pages show only the links and buttons it allows (the
// server refuses the rest whatever the page shows).
export function useCan(): (permission: Permission) => boolean {
  const session = useContext(SessionContext);
  return (permission) => session?.permissions.includes(permission) ?? false;
}
