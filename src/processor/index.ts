import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';

export async function startProcessor(_rt: Runtime): Promise<RoleHandle> {
  throw new Error('the processor role is not built yet');
}
