import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api';
import type { AuthSession } from './auth-session';
import { ErrorNote, useAction } from './ui';

// The second step of a sign-in: a code from the authenticator app, or a passkey. After a reload the
// page does not know which the account has, so it offers both. `auth` is the app's sign-in routes
// (/api/auth for the console, /portal/api/auth for the portal).
export function SecondFactor<S extends AuthSession>({
  api,
  auth,
  factors,
  onSession,
}: {
  api: Api;
  auth: string;
  factors?: AuthSession['second_factors'];
  onSession: (s: S) => void;
}) {
  const [code, setCode] = useState('');
  const codeField = useRef<HTMLInputElement>(null);
  // The step replaced the password form: the keyboard goes on where the next thing is typed.
  useLayoutEffect(() => codeField.current?.focus(), []);
  const totp = useAction(async () => onSession(await api.post<S>(`${auth}/totp`, { code: code.trim() })));
  const passkey = useAction(async () => {
    const optionsJSON = await api.post<PublicKeyCredentialRequestOptionsJSON>(`${auth}/passkey/options`);
    const response = await startAuthentication({ optionsJSON });
    onSession(await api.post<S>(`${auth}/passkey`, { response }));
  });

  return (
    <>
      {factors?.totp !== false && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void totp.act();
          }}
        >
          <label for="totp-code">Code from your authenticator app</label>
          <input
            id="totp-code"
            ref={codeField}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            required
            value={code}
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
          <ErrorNote error={totp.error} />
          <button type="submit" disabled={totp.busy}>
            Verify
          </button>
        </form>
      )}
      {factors?.passkey !== false && (
        <div class="actions">
          <button type="button" class="secondary" disabled={passkey.busy} onClick={() => void passkey.act()}>
            Use a passkey
          </button>
        </div>
      )}
      <ErrorNote error={passkey.error} />
    </>
  );
}
