import type { FastifyInstance } from 'fastify';
import { contactSchemas } from '../contact/contact-schemas';
import type { ManagerServices } from '../services';
import type { IdParams } from '../../shared/http/lookup';

// A lead's contact for the people who call it (src/manager/contact): never cached on the way.
export function contactRoutes({ contacts }: Pick<ManagerServices, 'contacts'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<IdParams & { Querystring: { agent_id?: string } }>(
      '/api/leads/:id/contact',
      {
        schema: contactSchemas.revealContact,
        config: { access: 'contacts.reveal', audit: 'lead.contact_reveal', auditsOwnRefusals: true },
      },
      async (req, reply) => {
        const contact = await contacts.reveal(req.principal, req.actor, req.params.id, req.query.agent_id ?? null);
        return reply.header('cache-control', 'no-store').send(contact);
      },
    );
  };
}
