import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { ErrorNote, useLoad } from '../../ui-kit/ui';
import type { OwnAccount } from './types.generated';

// The time zone the signed-in person reads the portal in (theirs, else their partner's, else UTC:
// GET /portal/api/me), and how to read it again after they change it.
export interface PersonZone {
  zone: string;
  reload(): void;
}

const ZoneContext = createContext<PersonZone>({ zone: 'UTC', reload: () => undefined });
export const useZone = (): PersonZone => useContext(ZoneContext);

// The pages wait for the zone: a range typed on them is read in it.
export function ZoneProvider({ api, children }: { api: Api; children: ComponentChildren }) {
  const me = useLoad(() => api.get<OwnAccount>('/portal/api/me'), []);
  if (me.error) return <ErrorNote error={me.error} />;
  if (!me.data) return <p aria-busy="true">Loading…</p>;
  return <ZoneContext.Provider value={{ zone: me.data.time_zone, reload: me.reload }}>{children}</ZoneContext.Provider>;
}
