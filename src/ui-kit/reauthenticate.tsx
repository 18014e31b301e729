import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import type { Api } from './api';
import { ErrorNote, useAction } from './ui';

// Confirming it is you before adding or replacing a second factor: the password, and a code of the
// authenticator app or a passkey when the account has one. `base` is the app's API (/api, /portal/api).
export function Reauthenticate({
  api,
  base,
  factors,
  onDone,
}: {
  api: Api;
  base: string;
  factors: { totp: boolean; passkeys: number };
  onDone: () => void;
}) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const prove = (extra: Record<string, unknown>) =>
    api.post(`${base}/auth/reauthenticate`, { current_password: password, ...extra });
  const withCode = useAction(async () => {
    await prove(factors.totp ? { code: code.trim() } : {});
    onDone();
  });
  const withPasskey = useAction(async () => {
    const optionsJSON = await api.post<PublicKeyCredentialRequestOptionsJSON>(`${base}/auth/passkey/options`);
    await prove({ passkey: await startAuthentication({ optionsJSON }) });
    onDone();
  });

  return (
    <section class="panel" aria-labelledby="reauth-title">
      <h2 id="reauth-title">Confirm it is you</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void withCode.act();
        }}
      >
        <p>Adding or replacing a second factor needs your password and a second factor you have now.</p>
        <label for="reauth-password">Your password</label>
        <input
          id="reauth-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
        {factors.totp && (
          <>
            <label for="reauth-code">Code from your app</label>
            <input
              id="reauth-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              value={code}
              onInput={(e) => setCode((e.target as HTMLInputElement).value)}
            />
          </>
        )}
        {(factors.totp || factors.passkeys === 0) && (
          <button type="submit" disabled={withCode.busy}>
            Confirm
          </button>
        )}
        {factors.passkeys > 0 && (
          <button type="button" class="secondary" disabled={withPasskey.busy} onClick={() => void withPasskey.act()}>
            Confirm with a passkey
          </button>
        )}
      </form>
      <ErrorNote error={withCode.error ?? withPasskey.error} />
    </section>
  );
}
