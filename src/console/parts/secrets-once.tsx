import { useEffect, useRef } from 'preact/hooks';
import { CopyField } from './ui';

const NAMES = { api_key: 'API key', hmac_secret: 'HMAC secret', callback_secret: 'Callback secret' } as const;
export type Secrets = Partial<Record<keyof typeof NAMES, string>>;

// Secrets the API shows once: copy them now; "Done" forgets them (they are in no state but this one).
export function SecretsOnce({ title, secrets, onDone }: { title: string; secrets: Secrets; onDone: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="secrets" role="region" aria-labelledby="secrets-title" tabIndex={-1} ref={ref}>
      <h2 id="secrets-title">{title}</h2>
      <p><strong>Shown once.</strong> Copy each secret to the partner's safe channel now; the service keeps only a hash or ciphertext.</p>
      {(Object.keys(NAMES) as (keyof typeof NAMES)[]).map((k) => secrets[k] && <CopyField key={k} label={NAMES[k]} value={secrets[k]!} />)}
      <button type="button" onClick={onDone}>Done, hide the secrets</button>
    </div>
  );
}
