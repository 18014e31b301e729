import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from 'mongodb';
import type { Clock } from '../shared/clock';
import { ApiError } from '../shared/errors';
import { principalIn } from '../identity/principal';
import { ALERT_KINDS, type AlertKind } from './alert-kinds';
import { AlertPreferences } from './alert-preferences';

export interface AlertRouteDeps {
  db: Db;
  clock: Clock;
}

const error = { type: 'object', required: ['error', 'message'], properties: { error: {}, message: {} } };
const kinds = { type: 'array', uniqueItems: true, maxItems: ALERT_KINDS.length, items: { enum: ALERT_KINDS } };
const choice = {
  type: 'object',
  required: ['kinds', 'available'],
  properties: {
    kinds: { ...kinds, description: 'The alerts mailed to you' },
    available: { ...kinds, description: 'Every alert there is (daily_summary is off until chosen)' },
  },
};

function schemas(tags: string[], realm: string) {
  const about = `about ${realm === 'portal' ? 'your partner' : 'the partners you look after (your partner_ids)'}`;
  return {
    // 409 in the console alone: a service token or a break-glass token has no mailbox.
    get: {
      tags,
      summary: `The alerts mailed to you ${about}`,
      response: realm === 'portal' ? { 200: choice, 401: error } : { 200: choice, 401: error, 409: error },
    },
    put: {
      tags,
      summary: `Choose the alerts mailed to you ${about}`,
      body: { type: 'object', required: ['kinds'], additionalProperties: false, properties: { kinds } },
      response: { 200: choice, 400: error, 401: error, 409: error, 413: error, 415: error, 422: error },
    },
  };
}

// A person's own choice of alerts: GET and PUT <base>/me/alerts, in the portal (/portal/api, any
// portal role: the choice is theirs, not their partner's) and the console (/api, a person signed
// in: a service token has no mailbox).
export function alertPreferenceRoutes(realm: 'portal' | 'manager', d: AlertRouteDeps) {
  const preferences = new AlertPreferences(d.db, d.clock);
  const path = realm === 'portal' ? '/portal/api/me/alerts' : '/api/me/alerts';
  const config: FastifyContextConfig = realm === 'portal' ? { portalAccess: 'portal.read' } : { access: 'signed_in' };
  const s = schemas(realm === 'portal' ? ['People'] : ['Accounts'], realm);
  const accountOf = (req: FastifyRequest): string => {
    if (realm === 'portal') return principalIn(req, 'portal').id;
    if (req.principal.kind !== 'account')
      throw new ApiError('conflict', { detail: 'Only a person signed in with a session chooses alerts' });
    return req.principal.id;
  };
  const view = (chosen: AlertKind[]) => ({ kinds: chosen, available: ALERT_KINDS });
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(path, { schema: s.get, config }, async (req) => view(await preferences.of(accountOf(req))));
    app.put<{ Body: { kinds: AlertKind[] } }>(path, { schema: s.put, config }, async (req) =>
      view(await preferences.set(accountOf(req), req.body.kinds)),
    );
  };
}
