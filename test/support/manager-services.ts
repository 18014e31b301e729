import { managerOptions } from '../../src/app';
import { managerServices, type ManagerServices } from '../../src/manager/services';
import type { Runtime } from '../../src/shared/runtime';

// The manager's services over a test app's runtime, as the manager plugin builds them.
export const servicesOf = (rt: Runtime): ManagerServices => managerServices(managerOptions(rt));
