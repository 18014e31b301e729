import type { ComponentChildren } from 'preact';
import { href } from '../../../ui-kit/router';
import { ScrollTable, when } from '../../../ui-kit/ui';
import { PART_LABELS, type QueueItem } from './queue-types';

// A queue as a table, in the API's order (callbacks due first); the number is the masked one. An agent's
// rows open the lead card; a supervisor's carry an action cell instead.
export function QueueTable({
  label,
  items,
  open,
  action,
}: {
  label: string;
  items: readonly QueueItem[];
  open?: boolean;
  action?: (item: QueueItem) => ComponentChildren;
}) {
  return (
    <ScrollTable label={label}>
      <thead>
        <tr>
          <th scope="col">Lead</th>
          <th scope="col">Queue</th>
          <th scope="col">Number</th>
          <th scope="col">Status</th>
          <th scope="col">Country</th>
          <th scope="col">Language</th>
          <th scope="col">Source</th>
          <th scope="col">Depositor</th>
          <th scope="col">Callback at</th>
          <th scope="col">Created</th>
          {action && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {items.map((l) => (
          <tr key={l.id} class={l.queue === 'callback_due' ? 'due' : undefined}>
            <td class="mono">{open ? <a href={href(`my-leads/${l.id}`)}>{l.id}</a> : l.id}</td>
            <td>{PART_LABELS[l.queue]}</td>
            <td class="mono phone">{l.phone ?? '—'}</td>
            <td>{l.status}</td>
            <td>{l.country_code ?? '—'}</td>
            <td>{l.language ?? '—'}</td>
            <td>{l.source ?? '—'}</td>
            <td>{l.is_depositor ? 'yes' : 'no'}</td>
            <td>{when(l.callback_at)}</td>
            <td>{when(l.created_at)}</td>
            {action && <td class="actions">{action(l)}</td>}
          </tr>
        ))}
        {items.length === 0 && (
          <tr>
            <td colSpan={action ? 11 : 10}>No open leads.</td>
          </tr>
        )}
      </tbody>
    </ScrollTable>
  );
}
