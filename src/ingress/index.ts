import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';

export async function startIngress(_rt: Runtime): Promise<RoleHandle> {
  throw new Error('the ingress role is not built yet');
}
