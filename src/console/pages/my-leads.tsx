import { useEffect, useState } from 'preact/hooks';
import type { Api, CursorPage } from '../../ui-kit/api';
import { LeadCardView } from '../parts/workspace/lead-card';
import { QueueTable } from '../parts/workspace/queue-table';
import { nextQueueRead, type QueueItem } from '../parts/workspace/queue-types';
import { ErrorNote, PageHeading, useLoad, when } from '../../ui-kit/ui';

// An agent's workspace: the queue (callbacks due on top, then new leads, then the rest by age), or
// one lead's card. The queue is read again when the next callback comes due and every 15 seconds.
export function MyLeadsPage({ api, id }: { api: Api; id?: string }) {
  if (id) return <LeadCardView key={id} api={api} id={id} />;
  return <Queue api={api} />;
}

function Queue({ api }: { api: Api }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const queue = useLoad(
    () =>
      api.get<CursorPage<QueueItem>>(
        `/api/workspace/leads?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ),
    [cursor],
  );
  useEffect(() => {
    if (!queue.data) return undefined;
    const timer = setTimeout(queue.reload, nextQueueRead(queue.data.items, Date.now()));
    return () => clearTimeout(timer);
  }, [queue.data]);
  const due = queue.data?.items.filter((l) => l.queue === 'callback_due') ?? [];

  return (
    <section>
      <PageHeading>My leads</PageHeading>
      <div role="alert">
        {due.map((l) => (
          <p key={l.id} class="notice">
            Callback due: <a href={`#/my-leads/${l.id}`}>{l.id}</a> (scheduled {when(l.callback_at)})
          </p>
        ))}
      </div>
      <ErrorNote error={queue.error} />
      {queue.data && <QueueTable label="My queue" items={queue.data.items} open />}
      {(cursors.length > 0 || queue.data?.next_cursor) && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors([])}>
            Top of the queue
          </button>
          <button
            type="button"
            disabled={!queue.data?.next_cursor}
            onClick={() => setCursors([...cursors, queue.data!.next_cursor!])}
          >
            Further down
          </button>
        </nav>
      )}
    </section>
  );
}
