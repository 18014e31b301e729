import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api } from './api';
import type { AuthSession } from './auth-session';

// An app's hold on its session: asks the server where this browser stands (the session cookie
// outlives a reload), keeps the CSRF token of every session answer in the Api, and turns a 401 while
// signed in into "signed out" with a notice. `sessionPath` is /api/session or /portal/api/session.
export function useSessionFlow<S extends AuthSession>(sessionPath: string) {
  // undefined: still asking the server whether this browser has a session.
  const [session, setSession] = useState<S | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const signedIn = useRef(false);
  signedIn.current = session?.stage === 'signed_in';
  // A 401 while signed in means the session ended (timed out, revoked, rights changed); during the
  // sign-in steps it is only a wrong code, shown by the step itself.
  const api = useMemo(
    () =>
      new Api(() => {
        if (!signedIn.current) return;
        setSession(null);
        setNotice('Your session has ended. Sign in again.');
      }),
    [],
  );
  const onSession = (s: S | null) => {
    if (s) api.useCsrf(s.csrf_token);
    if (s?.stage === 'signed_in') setNotice(null);
    setSession(s);
  };
  const signedOut = (why: string) => {
    setSession(null);
    setNotice(why);
  };

  useEffect(() => {
    api.answer<S>(sessionPath).then(
      (a) => onSession(a.status === 200 ? a.body : null),
      () => onSession(null),
    );
  }, []);

  return { api, session, notice, onSession, signedOut };
}
