import { templateProblem } from '../shared/postbacks/postback-template';
import { EVENT_NAMES } from './api-schemas';
import { documentedTemplate } from './documented-urls';
import {
  answers,
  BODY_ERRORS,
  ID_ERRORS,
  idParams,
  object,
  refusedUnless,
  str,
  stricterInDocument,
} from '../shared/http/schema-parts';

// What the preview's document cannot say about a template: {token} needs the partner's postback token.
const TEMPLATE_REFUSAL = refusedUnless('the template names {token} while the partner has no postback token', {
  token_not_set: `/template ${templateProblem('https://t.example/pb?t={token}', { allowHttp: false, tokenSet: false })}`,
});
const TEMPLATE_DEFAULT = "Default: the partner's saved template for the event";

// POST /api/affiliates/:id/postback-preview. The template's scheme depends on CALLBACK_ALLOW_HTTP,
// known at start-up; the document shows the template's full shape, the route validates the loose one,
// and the handler refuses the rest of a draft with 422 after finding the partner (a 404 stays a 404),
// naming a refused macro where there is one.
export function postbackPreviewSchema(allowHttp: boolean) {
  return stricterInDocument(
    {
      tags: ['affiliates'],
      summary:
        'The URL a postback template yields for a sample lead (token masked); 422 naming a macro that may not be used',
      params: idParams,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          template: {
            type: 'string',
            minLength: 1,
            maxLength: 2048,
            pattern: '^https?://[^/?#]+([/?#].*)?$',
            description: TEMPLATE_DEFAULT,
          },
          event: { enum: EVENT_NAMES, default: 'lead.accepted' },
          status_mapping: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description: "Default: the saved mapping for the event's postbacks",
          },
        },
      },
      response: {
        ...answers({ 200: object({ url: str, event: { enum: EVENT_NAMES } }) }, ...ID_ERRORS, ...BODY_ERRORS, 409),
        422: TEMPLATE_REFUSAL,
      },
    },
    { template: { ...documentedTemplate(allowHttp), description: TEMPLATE_DEFAULT } },
  );
}
