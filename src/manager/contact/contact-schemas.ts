import { answers, errorBody, ID_MAX, idParams, nullable, object, str } from '../../shared/http/schema-parts';

// The contact reveal's route schema (validation and the OpenAPI document), beside the manager's others.
export const contactSchemas = {
  revealContact: {
    tags: ['leads'],
    summary:
      "A lead's phone, email, full name and language, for its current agent, that agent's supervisor, or a service account acting for " +
      "the agent named in agent_id; audited, counted against the agent's hourly quota. 404 to anyone not on the agent's side, 410 once erased",
    params: idParams,
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        agent_id: {
          type: 'string',
          minLength: 1,
          maxLength: ID_MAX,
          description: 'The agent the reveal is for: required from a service account (a CRM acting for its agent)',
        },
      },
    },
    response: {
      ...answers(
        {
          200: object({
            lead_id: str,
            phone: str,
            email: nullable('string'),
            full_name: nullable('string'),
            language: nullable('string'),
          }),
        },
        404,
        410,
        422,
      ),
      429: {
        ...errorBody,
        description:
          "reveal_quota_exceeded: the agent's CONTACT_REVEALS_PER_HOUR are used; Retry-After says when one fits again",
      },
    },
  },
};
