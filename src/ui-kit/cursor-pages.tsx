import { useState } from 'preact/hooks';
import type { CursorPage } from './api';
import { useLoad, type Loaded } from './ui';

// Cursor paging of a list: the cursors that led to the page shown are kept as a stack, so "Newer"
// goes back one page and "Newest" to the first. A new `key` (other filters) starts at the newest.
export interface CursorPages<T> extends Loaded<CursorPage<T>> {
  pageNumber: number;
  newest(): void;
  newer(): void;
  older(cursor: string): void;
}

export function useCursorPages<T>(
  load: (cursor: string | undefined) => Promise<CursorPage<T>>,
  key: string,
): CursorPages<T> {
  const [at, setAt] = useState<{ key: string; cursors: string[] }>({ key, cursors: [] });
  const cursors = at.key === key ? at.cursors : [];
  const cursor = cursors.at(-1);
  const page = useLoad(() => load(cursor), [key, cursor]);
  const move = (next: string[]) => setAt({ key, cursors: next });
  return {
    ...page,
    pageNumber: cursors.length + 1,
    newest: () => move([]),
    newer: () => move(cursors.slice(0, -1)),
    older: (c) => move([...cursors, c]),
  };
}

// Offered whenever next_cursor is set, a short or even empty page included: a list filtered entry
// by entry (the lead list's country and source) answers what one request could scan.
export function CursorPager<T>({ pages }: { pages: CursorPages<T> }) {
  const next = pages.data?.next_cursor ?? null;
  const first = pages.pageNumber === 1;
  if (first && next === null) return null;
  // aria-disabled rather than disabled: a button that just became unusable keeps the focus. A click
  // while a page loads is ignored, so a double click never skips a page.
  const button = (label: string, off: boolean, go: () => void) => (
    <button
      type="button"
      aria-disabled={off}
      onClick={() => {
        if (!off && !pages.loading) go();
      }}
    >
      {label}
    </button>
  );
  return (
    <nav class="pager" aria-label="Pages">
      {button('Newest', first, pages.newest)}
      {button('Newer', first, pages.newer)}
      {button('Older', next === null, () => next !== null && pages.older(next))}
      <span class="muted" role="status">
        Page {pages.pageNumber}
        {next === null ? ', the oldest' : ''}
      </span>
    </nav>
  );
}
