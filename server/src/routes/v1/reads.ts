import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  v1ContactPageSchema,
  v1ContactsQuerySchema,
  v1TemplateListSchema,
  v1TemplatesQuerySchema,
} from '@masivo/contract/public-api';
import { assertOwnKommoAccount } from '../../services/campaigns/campaign-references';
import { listV1Contacts, listV1Templates } from '../../services/public-api/v1-views';

/** Contacts and templates for other systems, read only. */
export default async function readRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/contacts',
    {
      config: { permission: 'contacts.view', apiScope: 'contacts:read', scope: { query: { kommo_account_id: 'kommo' } } },
      schema: { tags: ['contacts'], operationId: 'listContacts', summary: 'Contactos de una cuenta Kommo, por páginas', querystring: v1ContactsQuerySchema, response: { 200: v1ContactPageSchema } },
    },
    async (request) => {
      await assertOwnKommoAccount(ctx.db, request.orgId, request.query.kommo_account_id);
      return listV1Contacts(ctx.db, request.orgId, request.query);
    },
  );

  app.get(
    '/templates',
    {
      config: { permission: 'campaigns.view', apiScope: 'templates:read', scope: { query: { whatsapp_account_id: 'whatsapp' } } },
      schema: { tags: ['templates'], operationId: 'listTemplates', summary: 'Plantillas con los parámetros que acepta cada destinatario', querystring: v1TemplatesQuerySchema, response: { 200: v1TemplateListSchema } },
    },
    (request) => listV1Templates(ctx.db, request.orgId, request.visible ? [...request.visible.whatsapp] : null, request.query),
  );
}
