import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { CopyField } from './ui';

const NAMES = { api_key: 'API key', hmac_secret: 'HMAC secret', callback_secret: 'Callback secret' } as const;
export type Secrets = Partial<Record<keyof typeof NAMES, string>>;

// Values the API shows once (secrets, tokens, one-time links): copy them now; "Done" forgets them
// (they are in no state but this one).
export function ShownOnce({
  title,
  fields,
  doneLabel,
  onDone,
  children,
}: {
  title: string;
  fields: [label: string, value: string][];
  doneLabel: string;
  onDone: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <div class="secrets" role="region" aria-labelledby="secrets-title" tabIndex={-1} ref={ref}>
      <h2 id="secrets-title">{title}</h2>
      <p>
        <strong>Shown once.</strong> {children}
      </p>
      {fields.map(([label, value]) => (
        <CopyField key={label} label={label} value={value} />
      ))}
      <button type="button" onClick={onDone}>
        {doneLabel}
      </button>
    </div>
  );
}

// `note` says where the secrets go (the console: to the partner; the portal: into the partner's own system).
export function SecretsOnce({
  title,
  secrets,
  onDone,
  note = "Copy each secret to the partner's safe channel now",
}: {
  title: string;
  secrets: Secrets;
  onDone: () => void;
  note?: string;
}) {
  const fields = (Object.keys(NAMES) as (keyof typeof NAMES)[]).flatMap((k): [string, string][] =>
    secrets[k] ? [[NAMES[k], secrets[k]]] : [],
  );
  return (
    <ShownOnce title={title} fields={fields} doneLabel="Done, hide the secrets" onDone={onDone}>
      {note}; the service keeps only a hash or ciphertext.
    </ShownOnce>
  );
}
