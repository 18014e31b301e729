import { useState } from 'preact/hooks';
import type { Api, Page } from '../../ui-kit/api';
import { PartnerSettingsForm, type Partner } from '../parts/partner-settings-form';
import { SecretsOnce, type Secrets } from '../../ui-kit/secrets-once';
import { ErrorNote, PageHeading, Pager, ScrollTable, useLoad, when } from '../../ui-kit/ui';
import { href } from '../../ui-kit/router';
import { useCan } from '../session';

export function PartnersPage({ api }: { api: Api }) {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ partner: Partner; secrets: Secrets } | null>(null);
  const partners = useLoad(() => api.get<Page<Partner>>(`/api/affiliates?limit=50&offset=${offset}`), [offset]);

  const create = async (settings: Record<string, unknown>) => {
    const { api_key, hmac_secret, callback_secret, ...partner } = await api.post<Partner & Required<Secrets>>(
      '/api/affiliates',
      settings,
    );
    setCreating(false);
    setCreated({ partner, secrets: { api_key, hmac_secret, callback_secret } });
    partners.reload();
  };

  return (
    <section>
      <PageHeading>Partners</PageHeading>
      {created && (
        <SecretsOnce
          title={`Partner ${created.partner.name} created (${created.partner.id})`}
          secrets={created.secrets}
          onDone={() => setCreated(null)}
        />
      )}
      {can('partners.create') && !creating && !created && (
        <button type="button" onClick={() => setCreating(true)}>
          New partner
        </button>
      )}
      {creating && (
        <div class="panel">
          <h2>New partner</h2>
          <PartnerSettingsForm partner={null} submitLabel="Create partner" onSubmit={create} />
          <button type="button" class="secondary" onClick={() => setCreating(false)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNote error={partners.error} />
      {partners.data && (
        <>
          <ScrollTable label="Partners">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Callback URL</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {partners.data.items.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={href(`partners/${p.id}`)}>{p.name}</a>
                  </td>
                  <td class="mono">{p.id}</td>
                  <td class="mono wrap">{p.callback_url ?? '—'}</td>
                  <td>{p.disabled ? 'disabled' : 'active'}</td>
                  <td>{when(p.created_at)}</td>
                </tr>
              ))}
              {partners.data.items.length === 0 && (
                <tr>
                  <td colSpan={5}>No partners yet.</td>
                </tr>
              )}
            </tbody>
          </ScrollTable>
          <Pager offset={offset} next={partners.data.next_offset} onPage={setOffset} />
        </>
      )}
    </section>
  );
}
