import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import type { Api } from './api';
import type { AuthSession } from './auth-session';
import { CopyField, ErrorNote, useAction } from './ui';

// Setting a second factor up: while enrolling at a first sign-in, or from the account page. Each
// answers the session as it is after (signed in, when enrolling). `auth` is the app's sign-in routes.

export function TotpSetup<S extends AuthSession>({
  api,
  auth,
  onDone,
}: {
  api: Api;
  auth: string;
  onDone: (s: S) => void;
}) {
  const [setup, setSetup] = useState<{ secret: string; uri: string } | null>(null);
  const [code, setCode] = useState('');
  const start = useAction(async () => setSetup(await api.post<{ secret: string; uri: string }>(`${auth}/totp/setup`)));
  const confirm = useAction(async () => {
    const session = await api.post<S>(`${auth}/totp/confirm`, { code: code.trim() });
    setSetup(null);
    setCode('');
    onDone(session);
  });

  return (
    <section class="panel" aria-labelledby="totp-setup-title">
      <h2 id="totp-setup-title">Authenticator app (TOTP)</h2>
      {!setup && (
        <button type="button" disabled={start.busy} onClick={() => void start.act()}>
          Set up an authenticator app
        </button>
      )}
      {setup && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void confirm.act();
          }}
        >
          <p>
            Add this key to your authenticator app (or paste the otpauth link into it), then type the code it shows.
          </p>
          <CopyField label="Secret key" value={setup.secret} />
          <CopyField label="otpauth link" value={setup.uri} />
          <label for="totp-setup-code">Code from the app</label>
          <input
            id="totp-setup-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            required
            value={code}
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={confirm.busy}>
            Confirm the code
          </button>
        </form>
      )}
      <ErrorNote error={start.error ?? confirm.error} />
    </section>
  );
}

export function PasskeySetup<S extends AuthSession>({
  api,
  auth,
  onDone,
}: {
  api: Api;
  auth: string;
  onDone: (s: S) => void;
}) {
  const [name, setName] = useState('Passkey');
  const add = useAction(async () => {
    const optionsJSON = await api.post<PublicKeyCredentialCreationOptionsJSON>(`${auth}/passkey/register/options`);
    const response = await startRegistration({ optionsJSON });
    onDone(await api.post<S>(`${auth}/passkey/register`, { response, name: name.trim() || 'Passkey' }));
  });

  return (
    <section class="panel" aria-labelledby="passkey-setup-title">
      <h2 id="passkey-setup-title">Passkey</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void add.act();
        }}
      >
        <p>A passkey on this device or a security key: the browser asks for it instead of a code.</p>
        <label for="passkey-name">Passkey name</label>
        <input
          id="passkey-name"
          maxLength={100}
          required
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={add.busy}>
          Add a passkey
        </button>
      </form>
      <ErrorNote error={add.error} />
    </section>
  );
}
