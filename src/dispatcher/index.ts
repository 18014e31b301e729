import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';

export async function startDispatcher(_rt: Runtime): Promise<RoleHandle> {
  throw new Error('the dispatcher role is not built yet');
}
