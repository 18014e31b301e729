import type { ManagerClient } from './manager-client';
import { until } from './topic-probe';

// Waits until the manager API shows the lead's personal data as erased; the lead as it shows it.
export const erasedLead = (manager: ManagerClient, id: string) =>
  until(
    async () => {
      const res = await manager.get<{ personal_data: string }>(`/api/leads/${id}`);
      return res.body.personal_data === 'erased' ? res.body : null;
    },
    20000,
    `lead ${id} to be erased`,
  );
