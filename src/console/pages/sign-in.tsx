import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { SignInSteps } from '../../ui-kit/sign-in';
import type { Session } from '../session';

// The console's sign-in: the shared steps, plus single sign-on where it is configured.
export function SignIn({
  api,
  session,
  notice,
  ssoError,
  onSession,
}: {
  api: Api;
  session: Session | null;
  notice: string | null;
  ssoError: string | null;
  onSession: (s: Session | null) => void;
}) {
  // The SSO button only where single sign-on is configured: a plain link, the server redirects to the
  // provider and back to the console.
  const [sso, setSso] = useState(false);
  useEffect(() => {
    void api.answer<{ sso: boolean }>('/api/auth/methods').then(
      (a) => setSso(a.body?.sso === true),
      () => setSso(false),
    );
  }, [api]);

  return (
    <SignInSteps
      api={api}
      auth="/api/auth"
      title="Lead intake console"
      session={session}
      notice={notice}
      onSession={onSession}
      banner={
        ssoError && (
          <p class="error" role="alert">
            Single sign-on did not sign you in ({ssoError}). Try again, or sign in with your password.
          </p>
        )
      }
      passwordExtras={
        sso && (
          <p>
            <a class="button secondary" href="/api/auth/sso">
              Sign in with SSO
            </a>
          </p>
        )
      }
    />
  );
}
