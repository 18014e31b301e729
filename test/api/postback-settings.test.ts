import { answeredOk, CallbackReceiver } from '../support/callback-receiver';
import { ManagerClient } from '../support/manager-client';
import { POSTBACK_APP, query, TOKEN, trackerPartner } from '../support/postback-tracker';
import { startTestApp, type TestApp } from '../support/test-app';

// A partner's postback settings through the manager API: templates refused with the macro and the
// reason named, a write-only token, a preview, and a test postback sent through the dispatcher to a
// real HTTP receiver on loopback playing the tracker.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;

beforeAll(async () => {
  app = await startTestApp(POSTBACK_APP);
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const tracker = (path: string, postbacks: Record<string, unknown>, extra?: Record<string, unknown>) =>
  trackerPartner(manager, receiver, path, postbacks, extra);

describe('manager API', () => {
  it('refuses a template naming money, personal data or an unknown macro, with a 422 naming it', async () => {
    const base = receiver.url('/refused');
    for (const [macro, why] of [
      ['amount', 'money'],
      ['phone', 'personal data'],
      ['email', 'personal data'],
      ['payout', 'money'],
      ['nonsense', 'unknown macro'],
    ] as const) {
      const res = await manager.post<{ error: string; message: string }>('/api/affiliates', {
        name: 'refused',
        postbacks: { url: `${base}?x={${macro}}` },
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.message).toContain(`/postbacks/url names`);
      expect(res.body.message).toContain(`{${macro}}`);
      expect(res.body.message).toContain(why);
    }
    const perEvent = await manager.post<{ message: string }>('/api/affiliates', {
      name: 'refused',
      postbacks: { templates: [{ event: 'lead.ftd', url: `${base}?a={ftd_amount}` }] },
    });
    expect(perEvent.status).toBe(422);
    expect(perEvent.body.message).toContain('/postbacks/templates/0/url names {ftd_amount}: money');
    const twice = await manager.post<{ message: string }>('/api/affiliates', {
      name: 'refused',
      postbacks: {
        templates: [
          { event: 'lead.ftd', url: base },
          { event: 'lead.ftd', url: base },
        ],
      },
    });
    expect(twice.body.message).toContain('two templates for lead.ftd');
  });

  it('refuses {token} or sign without a token, a macro in the host, and credentials', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: `${receiver.url('/t')}?t={token}` }, 'no postback token'],
      [{ url: `${receiver.url('/t')}?e={event}`, sign: true }, '/postbacks/sign needs a postback token'],
      [{ url: 'http://{source}.tracker.example/pb' }, 'macro in its host'],
      [{ url: 'http://user:pw@tracker.example/pb?e={event}' }, 'credentials'],
      [{ url: `${receiver.url('/t')}?e={event` }, 'not part of a {macro}'],
    ];
    for (const [postbacks, says] of cases) {
      const res = await manager.post<{ message: string }>('/api/affiliates', { name: 'refused', postbacks });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain(says);
    }
  });

  it('keeps the token write-only: never shown, kept across a PATCH without it, removed with null', async () => {
    const id = await tracker('/token', { url: `${receiver.url('/token')}?t={token}`, token: TOKEN });
    const shown = await manager.get<Record<string, unknown>>(`/api/affiliates/${id}`);
    expect(shown.body.postback_token_set).toBe(true);
    expect(JSON.stringify(shown.body)).not.toContain(TOKEN);
    const patched = await manager.patch<Record<string, unknown>>(`/api/affiliates/${id}`, {
      postbacks: { url: `${receiver.url('/token')}?t={token}&e={event}` },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.postback_token_set).toBe(true);
    // Removing the token while a template still names it is refused; with the template changed it goes.
    expect(
      (
        await manager.patch(`/api/affiliates/${id}`, {
          postbacks: { url: `${receiver.url('/token')}?t={token}`, token: null },
        })
      ).status,
    ).toBe(422);
    const cleared = await manager.patch<Record<string, unknown>>(`/api/affiliates/${id}`, {
      postbacks: { url: `${receiver.url('/token')}?e={event}`, token: null },
    });
    expect(cleared.body.postback_token_set).toBe(false);
  });

  it('previews the URL for a sample lead with the token masked, and checks the template as a save does', async () => {
    const id = await tracker(
      '/preview',
      { url: `${receiver.url('/preview')}?s={status}&t={token}`, token: TOKEN },
      { status_mapping: { ftd: 'sale' } },
    );
    const saved = await manager.post<{ url: string }>(`/api/affiliates/${id}/postback-preview`, { event: 'lead.ftd' });
    expect(saved.body).toEqual({ url: `${receiver.url('/preview')}?s=sale&t=***`, event: 'lead.ftd' });
    const draft = await manager.post<{ url: string }>(`/api/affiliates/${id}/postback-preview`, {
      template: 'https://t.example/pb?c={click_id}&d={is_depositor}',
      event: 'lead.rtd',
    });
    expect(draft.body.url).toBe('https://t.example/pb?c=sample-click&d=1');
    const refused = await manager.post<{ message: string }>(`/api/affiliates/${id}/postback-preview`, {
      template: 'https://t.example/pb?p={phone}',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('{phone}: personal data');
  });

  it('sends a test postback through the dispatcher and reports the attempt and the masked URL', async () => {
    const id = await tracker('/test-pb', {
      url: `${receiver.url('/test-pb')}?e={event}&s={status}&t={token}`,
      token: TOKEN,
    });
    const res = await manager.post<Record<string, unknown>>(`/api/affiliates/${id}/test-postback`, {
      event: 'lead.ftd',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(answeredOk({ url: `${receiver.url('/test-pb')}?e=lead.ftd&s=ftd&t=***` }));
    const [got] = await receiver.waitFor('/test-pb', 1);
    expect(query(got!).get('t')).toBe(TOKEN);
    expect(got!.headers['x-event-id']).toMatch(/^le-0:test-[0-9a-f]{12}$/);
    const none = await manager.post<{ error: string }>(
      `/api/affiliates/${await tracker('/none', { url: null })}/test-postback`,
    );
    expect(none.status).toBe(409);
  });
});
