import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import {
  accountParamsSchema,
  contactFilterQuerySchema,
  countResponseSchema,
  customFieldInfoSchema,
  customFieldsBodySchema,
  exportBodySchema,
  fieldParamsSchema,
  fieldValuesQuerySchema,
  fieldValuesResponseSchema,
  filteredContactsQuerySchema,
  filteredContactsResponseSchema,
  filteredFieldValuesQuerySchema,
  filterOptionsResponseSchema,
  listContactsQuerySchema,
  recipientCountQuerySchema,
  tagsResponseSchema,
} from '@masivo/contract/contacts';
import { createContactsService } from '../../services/contacts/contacts-service';
import type { ScreenCount } from '../../services/contacts/count-cache';
import { badRequest } from '../../lib/errors';
import { loggedExport } from '../request-actor';
import { exportContactsCsv } from '../../services/contacts/contact-export';

type FilterQuery = z.output<typeof contactFilterQuerySchema>;

/** The query string's filter parts as the filter object the engine takes. */
function filterOf(q: FilterQuery): ContactFilterInput {
  return { searchQuery: q.searchQuery, tags: q.tags, tagOperator: q.tagOperator, excludedTags: q.excludedTags, customFieldFilters: q.customFieldFilters };
}

/** `{count}` as the spec has it; `approximate: true` only on an estimate (count-cache.ts). */
function screenCount(c: ScreenCount) {
  return c.approximate ? { count: c.count, approximate: true } : { count: c.count };
}

/** Spec §7 "Contacts", under /api/contacts. */
export default async function contactRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Every contacts read (lists, counts, filter options, export) tolerates lag: the replica's
  // (`readDb`); only the account's ownership is asked of the primary.
  const contacts = createContactsService(app.ctx.db, { estimates: app.ctx.database.kind === 'postgres', reads: app.ctx.readDb });
  const tags = ['contacts'];

  app.get('/', { config: { permission: 'contacts.view', scope: { query: { account_id: 'kommo' } } }, schema: { tags, querystring: listContactsQuerySchema, response: { 200: filteredContactsResponseSchema } } }, (req) => {
    // Every account's contacts at once is what a scoped member may not see: they name one account,
    // or get the only one they have.
    const visible = req.visible;
    if (visible && !req.query.account_id) {
      if (visible.kommo.size !== 1) throw badRequest('Elige una cuenta Kommo');
      return contacts.list(req.orgId, [...visible.kommo][0], req.query);
    }
    return contacts.list(req.orgId, req.query.account_id, req.query);
  });

  app.get(
    '/recipient-count',
    { config: { permission: 'contacts.view', scope: { query: { account_id: 'kommo' } } }, schema: { tags, querystring: recipientCountQuerySchema, response: { 200: countResponseSchema } } },
    async (req) => screenCount(await contacts.recipientCount(req.orgId, req.query.account_id, filterOf(req.query))),
  );

  app.post(
    '/custom-fields',
    { config: { permission: 'contacts.view', scope: { body: { account_id: 'kommo' } } }, schema: { tags, body: customFieldsBodySchema, response: { 200: z.array(customFieldInfoSchema) } } },
    (req) => contacts.customFields(req.orgId, req.body.accountId),
  );

  app.get(
    '/:accountId/filtered',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } },
      schema: { tags, params: accountParamsSchema, querystring: filteredContactsQuerySchema, response: { 200: filteredContactsResponseSchema } },
    },
    (req) => contacts.filtered(req.orgId, req.params.accountId, filterOf(req.query), req.query),
  );

  app.get(
    '/:accountId/advanced-filtered',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } },
      schema: {
        tags,
        params: accountParamsSchema,
        querystring: filteredContactsQuerySchema,
        response: { 200: filteredContactsResponseSchema.extend({ has_more: z.boolean() }) },
      },
    },
    async (req) => {
      const page = await contacts.filtered(req.orgId, req.params.accountId, filterOf(req.query), req.query);
      // An estimated total cannot tell the last page: a full page then means there may be more.
      const more = page.total_approximate ? page.contacts.length === page.limit : page.offset + page.contacts.length < page.total;
      return { ...page, has_more: more };
    },
  );

  app.get(
    '/:accountId/count',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, querystring: contactFilterQuerySchema, response: { 200: countResponseSchema } } },
    async (req) => screenCount(await contacts.count(req.orgId, req.params.accountId, filterOf(req.query))),
  );

  app.get('/:accountId/tags', { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, response: { 200: tagsResponseSchema } } }, (req) =>
    contacts.tags(req.orgId, req.params.accountId),
  );

  app.get(
    '/:accountId/filter-options',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, response: { 200: filterOptionsResponseSchema } } },
    (req) => contacts.filterOptions(req.orgId, req.params.accountId),
  );

  app.get(
    '/:accountId/custom-fields/:fieldName/values',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: fieldParamsSchema, querystring: fieldValuesQuerySchema, response: { 200: fieldValuesResponseSchema } } },
    async (req) => ({
      field: req.params.fieldName,
      values: await contacts.fieldValues(req.orgId, req.params.accountId, req.params.fieldName, req.query),
    }),
  );

  app.get(
    '/:accountId/custom-fields/:fieldName/values/filtered',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } },
      schema: { tags, params: fieldParamsSchema, querystring: filteredFieldValuesQuerySchema, response: { 200: fieldValuesResponseSchema } },
    },
    async (req) => {
      // The values a field offers under the other filters: its own filter is left out.
      const excluded = req.query.excludeFieldName ?? req.params.fieldName;
      const filter = filterOf(req.query);
      const customFieldFilters = Object.fromEntries(Object.entries(filter.customFieldFilters ?? {}).filter(([name]) => name !== excluded));
      return {
        field: req.params.fieldName,
        values: await contacts.fieldValues(req.orgId, req.params.accountId, req.params.fieldName, {
          filter: { ...filter, customFieldFilters },
          search: req.query.search,
          limit: req.query.limit,
        }),
      };
    },
  );

  app.post(
    '/:accountId/export',
    { config: { permission: 'contacts.export', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, body: exportBodySchema.optional() } },
    async (req, reply) => {
      const account = await contacts.ownedAccount(req.orgId, req.params.accountId);
      const body = exportBodySchema.parse(req.body ?? {});
      const fieldNames = await contacts.exportFieldNames(req.orgId, account.id);
      const date = new Date().toISOString().slice(0, 10);
      const counted = { rows: 0 };
      const rows = exportContactsCsv(app.ctx.readDb, { userId: req.orgId, accountId: account.id, filter: body, fieldNames, format: body.format, counted });
      const stream = Readable.from(
        loggedExport(req, rows, (complete) => ({
          action: 'contacts.export',
          target: { type: 'kommo_account', id: account.id, name: account.subdomain },
          detail: { filter: body, rows: counted.rows, complete },
        })),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="contactos-${account.subdomain}-${date}.csv"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );
}
