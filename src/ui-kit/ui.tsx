import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api';
import { zonedDateTime } from '../shared/local-time';

// Small building blocks every page uses: headings that take focus, error notes that are announced,
// loading state, tables that scroll on a phone.

export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // Keyboard and screen-reader users land on the new page's title after a navigation.
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

// An error as the page words it: the API's own message and code, else the message.
export function errorText(error: unknown): string {
  return error instanceof ApiFailure
    ? `${error.message} (${error.code})`
    : error instanceof Error
      ? error.message
      : String(error);
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

// Runs `load` now and whenever a key changes; a stale answer never overwrites a newer one.
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState({ data: null, error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...keys, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

// An action button's state: busy while it runs, its error shown next to it.
export function useAction<A extends unknown[]>(run: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const act = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await run(...args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, act };
}

// `cards`: on a phone each row is a card of labelled cells (each td's data-label), not a wide row.
export function ScrollTable({
  label,
  cards,
  children,
}: {
  label: string;
  cards?: boolean;
  children: ComponentChildren;
}) {
  // Focusable so a keyboard user can scroll a wide table on a narrow screen.
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table class={cards ? 'cards' : undefined}>{children}</table>
    </div>
  );
}

export function when(value: string | null | undefined): string {
  return whenIn(value, 'UTC');
}

// The zone the browser runs in: where a manager, who has no zone setting, reads a time of their own.
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

// A time as "yyyy-mm-dd hh:mm:ss" in a zone (a portal person's own, or the browser's).
export function whenIn(value: string | null | undefined, zone: string): string {
  if (!value) return '—';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : zonedDateTime(d, zone).replace('T', ' ').slice(0, 19);
}

export function Pager({
  offset,
  next,
  onPage,
}: {
  offset: number;
  next: number | null;
  onPage: (offset: number) => void;
}) {
  if (offset === 0 && next === null) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onPage(0)}>
        Newest
      </button>
      <button type="button" disabled={next === null} onClick={() => next !== null && onPage(next)}>
        Older
      </button>
    </nav>
  );
}

// A filter's drop-down: "any" (the empty value) or one of the choices.
export function ChoiceField({
  id,
  label,
  value,
  choices,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  choices: readonly string[];
  onChange: (e: Event) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={onChange}>
        <option value="">any</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </div>
  );
}

// A value copied to the clipboard on request, for secrets shown once. Browsers give the clipboard
// only to secure pages (https, or the loopback address): elsewhere the text is selected for Ctrl+C.
export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const id = `copy-${label.replace(/\W+/g, '-')}`;
  const copy = () => {
    const select = () => {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('Selected: press Ctrl+C');
    };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(value).then(() => setCopied('Copied'), select);
  };
  return (
    <div class="copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} readOnly value={value} class="mono" onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" aria-label={`Copy ${label}`} onClick={copy}>
          Copy
        </button>
      </div>
      <div role="status" class="hint">
        {copied}
      </div>
    </div>
  );
}
