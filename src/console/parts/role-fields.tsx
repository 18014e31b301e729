import { useContext } from 'preact/hooks';
import { mayGrant, ROLES, type Role } from '../../identity/roles';
import { SessionContext } from '../session';

// The roles the signed-in person may give (an admin: only those whose permissions it holds itself).
export function useGrantable(): Role[] {
  const role = useContext(SessionContext)?.account?.role;
  return role ? ROLES.filter((r) => mayGrant(role, r)) : [];
}

// What a new account or token is offered first: read-only, and grantable by owners and admins alike.
export const DEFAULT_ROLE: Role = 'analyst';

export const idList = (text: string): string[] => [
  ...new Set(
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

export function RoleField({ id, value, onChange }: { id: string; value: string; onChange: (role: Role) => void }) {
  const roles = useGrantable();
  return (
    <div class="field">
      <label for={id}>Role</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as Role)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {r.replace('_', ' ')}
          </option>
        ))}
      </select>
    </div>
  );
}

// An affiliate manager sees only these partners; other roles see every partner.
export function PartnersField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string;
  onChange: (text: string) => void;
}) {
  return (
    <div class="field">
      <label for={id}>Assigned partners</label>
      <input
        id={id}
        value={value}
        placeholder="pa-…, pa-…"
        onInput={(e) => onChange((e.target as HTMLInputElement).value)}
      />
    </div>
  );
}
