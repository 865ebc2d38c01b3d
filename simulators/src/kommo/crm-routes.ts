// Kommo API v4 write routes and the lead/pipeline reads: contact notes (add, list), contact tags
// (PATCH /contacts), leads (list, PATCH), pipelines. They pass the same gate as every route
// (block, rate limit, faults, token). Batches over 250 entities and invalid entries are refused
// as Kommo does: 400 with `validation-errors`, nothing of the batch applied.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { firstString } from '../shared/server';
import type { KommoAccount } from './account';
import { crmOf, type Lead, type LeadMove, type Note } from './crm';
import { pageLinks, parsePaging } from './paging';
import { listParam, numbersParam } from './query';
import { hal, noContent, problem, serverError } from './replies';
import type { KommoState } from './state';

type Req = FastifyRequest<{ Params: { subdomain: string; id?: string }; Querystring: Record<string, unknown> }>;
export type WithAccount = (handler: (req: Req, reply: FastifyReply, account: KommoAccount) => unknown) => {
  onRequest: (req: Req, reply: FastifyReply) => Promise<unknown>;
  handler: (req: Req, reply: FastifyReply) => unknown;
};

export const BATCH_LIMIT = 250;

export function origin(req: FastifyRequest): string {
  return `http://${req.headers.host ?? 'localhost'}`;
}

export function rawQuery(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q < 0 ? '' : req.url.slice(q + 1);
}

export interface Refusal {
  request_id: string;
  errors: Array<{ code: string; path: string; detail: string }>;
}

export function refuse(reply: FastifyReply, refusals: Refusal[]) {
  return problem(reply, 400, 'Request validation failed', { 'validation-errors': refusals });
}

/** The body of a batch call: an array of at most 250 objects. */
function batchOf(reply: FastifyReply, body: unknown): Record<string, unknown>[] | null {
  if (!Array.isArray(body) || body.length === 0 || body.some((e) => typeof e !== 'object' || e === null || Array.isArray(e))) {
    problem(reply, 400, 'Request body must be a non-empty array of objects');
    return null;
  }
  if (body.length > BATCH_LIMIT) {
    problem(reply, 400, `Too many entities in one request: at most ${BATCH_LIMIT}`);
    return null;
  }
  return body as Record<string, unknown>[];
}

const requestIdOf = (entry: Record<string, unknown>, index: number) => (entry.request_id === undefined ? String(index) : String(entry.request_id));

function noteJson(n: Note, accountId: number, responsibleUserId: number, self: string) {
  return {
    id: n.id,
    entity_id: n.entityId,
    created_by: n.createdBy,
    updated_by: n.createdBy,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
    responsible_user_id: responsibleUserId,
    group_id: 0,
    note_type: n.noteType,
    params: { text: n.text },
    account_id: accountId,
    _links: { self: { href: `${self}/api/v4/contacts/${n.entityId}/notes/${n.id}` } },
  };
}

function leadJson(l: Lead, accountId: number, responsibleUserId: number, self: string) {
  return {
    id: l.id,
    name: l.name,
    price: l.price,
    responsible_user_id: responsibleUserId,
    group_id: 0,
    status_id: l.statusId,
    pipeline_id: l.pipelineId,
    loss_reason_id: null,
    created_by: responsibleUserId,
    updated_by: responsibleUserId,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
    closed_at: l.closedAt,
    closest_task_at: null,
    is_deleted: false,
    custom_fields_values: l.customFieldsValues,
    score: null,
    account_id: accountId,
    labor_cost: null,
    _links: { self: { href: `${self}/api/v4/leads/${l.id}` } },
    _embedded: { tags: [], companies: [] } as Record<string, unknown>,
  };
}

/** `with=contacts` on a lead read: its main contact, as Kommo embeds it (none once deleted). */
function leadWithContacts(account: KommoAccount, l: Lead, self: string) {
  const contacts = account.exists(l.contactId)
    ? [{ id: l.contactId, is_main: true, _links: { self: { href: `${self}/api/v4/contacts/${l.contactId}` } } }]
    : [];
  return contacts;
}

function wants(query: Record<string, unknown>, what: string): boolean {
  return (firstString(query.with) ?? '').split(',').includes(what);
}

/** `with=leads` on a contact read: its leads' ids, as Kommo embeds them. */
export function withLeads(account: KommoAccount, contactId: number, self: string) {
  return crmOf(account).leadIdsOf(contactId).map((id) => ({ id, _links: { self: { href: `${self}/api/v4/leads/${id}` } } }));
}

export function wantsLeads(query: Record<string, unknown>): boolean {
  return wants(query, 'leads');
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export function registerKommoCrmRoutes(app: FastifyInstance, state: KommoState, withAccount: WithAccount): void {
  /** A fault that lets the write happen and then loses the answer (a 500): the caller cannot know. */
  const lostAnswer = (subdomain: string) => state.faults.take({ subdomain, write: true });

  const listNotes = (req: Req, reply: FastifyReply, account: KommoAccount, only?: number) => {
    const crm = crmOf(account);
    const paging = parsePaging(req.query);
    const entityIds = only !== undefined ? [only] : numbersParam(req.query, 'filter[entity_id]');
    const ids = numbersParam(req.query, 'filter[id]');
    const types = listParam(req.query, 'filter[note_type]');
    const from = Number.parseInt(firstString(req.query['filter[updated_at][from]']) ?? '', 10);
    const to = Number.parseInt(firstString(req.query['filter[updated_at][to]']) ?? '', 10);
    const source = entityIds ? [...new Set(entityIds)].flatMap((id) => crm.notesOf(id)) : crm.notes;
    const desc = firstString(req.query['order[updated_at]']) === 'desc' || firstString(req.query['order[id]']) === 'desc';
    const matching = source
      .filter((n) => (!ids || ids.includes(n.id)) && (!types || types.includes(n.noteType)))
      .filter((n) => (!Number.isFinite(from) || n.updatedAt >= from) && (!Number.isFinite(to) || n.updatedAt <= to))
      .sort((a, b) => (desc ? b.id - a.id : a.id - b.id));
    const page = matching.slice(paging.offset, paging.offset + paging.limit);
    if (page.length === 0) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    const path = only !== undefined ? `/api/v4/contacts/${only}/notes` : '/api/v4/contacts/notes';
    return hal(reply, {
      _page: paging.page,
      _links: pageLinks(`${self}${path}`, rawQuery(req), paging, page.length),
      _embedded: { notes: page.map((n) => noteJson(n, account.id, account.currentUserId, self)) },
    });
  };

  app.get('/:subdomain/api/v4/contacts/notes', withAccount((req, reply, account) => listNotes(req, reply, account)));

  app.get('/:subdomain/api/v4/contacts/:id/notes', withAccount((req, reply, account) => {
    const id = Number.parseInt(req.params.id ?? '', 10);
    if (!account.exists(id)) return problem(reply, 404, 'Not found');
    return listNotes(req, reply, account, id);
  }));

  app.post('/:subdomain/api/v4/contacts/notes', withAccount((req, reply, account) => {
    const batch = batchOf(reply, req.body);
    if (!batch) return reply;
    const refusals: Refusal[] = [];
    batch.forEach((entry, i) => {
      const errors: Refusal['errors'] = [];
      const entityId = Number(entry.entity_id);
      if (!Number.isInteger(entityId) || !account.exists(entityId)) errors.push({ code: 'NotFound', path: 'entity_id', detail: 'Entity not found' });
      if (entry.note_type !== 'common') errors.push({ code: 'NotSupportedChoice', path: 'note_type', detail: 'Only common notes are supported here' });
      const text = (entry.params as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string' || text.trim() === '') errors.push({ code: 'NotBlank', path: 'params.text', detail: 'This value should not be blank.' });
      if (errors.length) refusals.push({ request_id: requestIdOf(entry, i), errors });
    });
    if (refusals.length) return refuse(reply, refusals);
    const crm = crmOf(account);
    const self = `${origin(req)}/${account.subdomain}`;
    const created = batch.map((entry, i) => {
      const note = crm.addNote(Number(entry.entity_id), 'common', String((entry.params as { text: string }).text));
      return { id: note.id, entity_id: note.entityId, request_id: requestIdOf(entry, i), _links: { self: { href: `${self}/api/v4/contacts/${note.entityId}/notes/${note.id}` } } };
    });
    if (lostAnswer(account.subdomain)) return serverError(reply);
    return hal(reply, { _links: { self: { href: `${self}/api/v4/contacts/notes` } }, _embedded: { notes: created } });
  }));

  app.patch('/:subdomain/api/v4/contacts', withAccount((req, reply, account) => {
    const batch = batchOf(reply, req.body);
    if (!batch) return reply;
    const tagNames = (list: unknown): string[] | null => {
      if (!Array.isArray(list)) return null;
      const names: string[] = [];
      for (const t of list) {
        const byId = account.tags.list.find((x) => x.id === Number((t as { id?: unknown })?.id));
        const name = typeof (t as { name?: unknown })?.name === 'string' ? String((t as { name: string }).name).trim() : byId?.name;
        if (!name) return null;
        names.push(name);
      }
      return names;
    };
    const refusals: Refusal[] = [];
    batch.forEach((entry, i) => {
      const id = Number(entry.id);
      const errors: Refusal['errors'] = [];
      if (!Number.isInteger(id) || !account.exists(id)) errors.push({ code: 'NotFound', path: 'id', detail: 'Contact not found' });
      if (entry.tags_to_add !== undefined && tagNames(entry.tags_to_add) === null) errors.push({ code: 'InvalidType', path: 'tags_to_add', detail: 'Each tag needs a name or an existing id' });
      const embeddedTags = (entry._embedded as { tags?: unknown } | undefined)?.tags;
      if (embeddedTags !== undefined && embeddedTags !== null && tagNames(embeddedTags) === null) errors.push({ code: 'InvalidType', path: '_embedded.tags', detail: 'Each tag needs a name or an existing id' });
      if (errors.length) refusals.push({ request_id: requestIdOf(entry, i), errors });
    });
    if (refusals.length) return refuse(reply, refusals);
    const self = `${origin(req)}/${account.subdomain}`;
    const updated = batch.map((entry, i) => {
      const id = Number(entry.id);
      const current = account.resolve(id).tags;
      const embeddedTags = (entry._embedded as { tags?: unknown } | undefined)?.tags;
      // `_embedded.tags` sets the contact's whole tag list (null clears it); `tags_to_add` adds.
      let tags = embeddedTags === undefined ? current : (tagNames(embeddedTags) ?? []);
      const add = entry.tags_to_add === undefined ? [] : tagNames(entry.tags_to_add)!;
      tags = [...tags, ...add.filter((n) => !tags.includes(n))];
      const patch: { tags: string[]; name?: string } = { tags };
      if (typeof entry.name === 'string') patch.name = entry.name;
      account.update(id, patch);
      state.feedOf(account).contactsUpdated([id]);
      return { id, name: account.resolve(id).name, updated_at: account.updatedAtOf(id), request_id: requestIdOf(entry, i), _links: { self: { href: `${self}/api/v4/contacts/${id}` } } };
    });
    return hal(reply, { _links: { self: { href: `${self}/api/v4/contacts` } }, _embedded: { contacts: updated } });
  }));

  app.get('/:subdomain/api/v4/leads', withAccount((req, reply, account) => {
    const crm = crmOf(account);
    const paging = parsePaging(req.query);
    const ids = numbersParam(req.query, 'filter[id]');
    if (!ids) return problem(reply, 400, 'The simulator lists leads by filter[id] only');
    const leads = [...new Set(ids)].sort((a, b) => a - b).map((id) => crm.lead(id)).filter((l): l is Lead => l !== null);
    const page = leads.slice(paging.offset, paging.offset + paging.limit);
    if (page.length === 0) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    const withContacts = wants(req.query, 'contacts');
    return hal(reply, {
      _page: paging.page,
      _links: pageLinks(`${self}/api/v4/leads`, rawQuery(req), paging, page.length),
      _embedded: {
        leads: page.map((l) => {
          const json = leadJson(l, account.id, account.currentUserId, self);
          if (withContacts) json._embedded.contacts = leadWithContacts(account, l, self);
          return json;
        }),
      },
    });
  }));

  // A lead that does not exist is a 204 (Kommo's documented answer for GET /leads/{id}).
  app.get('/:subdomain/api/v4/leads/:id', withAccount((req, reply, account) => {
    const raw = req.params.id ?? '';
    if (!/^\d+$/.test(raw)) return problem(reply, 404, 'Not found');
    const lead = crmOf(account).lead(Number(raw));
    if (!lead) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    const json = leadJson(lead, account.id, account.currentUserId, self);
    if (wants(req.query, 'contacts')) json._embedded.contacts = leadWithContacts(account, lead, self);
    return hal(reply, json);
  }));

  app.patch('/:subdomain/api/v4/leads', withAccount((req, reply, account) => {
    const batch = batchOf(reply, req.body);
    if (!batch) return reply;
    const crm = crmOf(account);
    const refusals: Refusal[] = [];
    batch.forEach((entry, i) => {
      const errors: Refusal['errors'] = [];
      const lead = crm.lead(Number(entry.id));
      if (!lead) errors.push({ code: 'NotFound', path: 'id', detail: 'Lead not found' });
      if (entry.status_id !== undefined) {
        const why = crm.checkMove(Number(entry.pipeline_id ?? lead?.pipelineId), Number(entry.status_id));
        if (why) errors.push({ code: 'NotSupportedChoice', path: 'status_id', detail: why });
      }
      if (entry.price !== undefined && (!Number.isInteger(entry.price) || (entry.price as number) < 0)) {
        errors.push({ code: 'InvalidType', path: 'price', detail: 'This value should be of type int.' });
      }
      if (entry.name !== undefined && typeof entry.name !== 'string') errors.push({ code: 'InvalidType', path: 'name', detail: 'This value should be of type string.' });
      if (errors.length) refusals.push({ request_id: requestIdOf(entry, i), errors });
    });
    if (refusals.length) return refuse(reply, refusals);
    const self = `${origin(req)}/${account.subdomain}`;
    const feed = state.feedOf(account);
    const at = nowSeconds();
    const moves: LeadMove[] = [];
    const updated = batch.map((entry, i) => {
      let lead = crm.lead(Number(entry.id))!;
      const edit = { name: entry.name as string | undefined, price: entry.price as number | undefined };
      const edited = edit.name !== undefined || edit.price !== undefined;
      if (edited) lead = crm.editLead(lead.id, edit, at);
      let moved = false;
      if (entry.status_id !== undefined) {
        const pipelineId = Number(entry.pipeline_id ?? lead.pipelineId);
        const statusId = Number(entry.status_id);
        // Moving a lead to the stage it is in changes nothing, and Kommo emits nothing.
        if (statusId !== lead.statusId || pipelineId !== lead.pipelineId) {
          const move = crm.moveLead(lead.id, pipelineId, statusId, at);
          moves.push(move);
          lead = move.lead;
          moved = true;
        }
      }
      if (edited && !moved) feed.leadEdited(lead);
      return { id: lead.id, updated_at: lead.updatedAt, request_id: requestIdOf(entry, i), _links: { self: { href: `${self}/api/v4/leads/${lead.id}` } } };
    });
    // One webhook POST per moved lead, like moveLeads' default.
    if (moves.length > 0) feed.leadsMoved(moves, 1);
    return hal(reply, { _links: { self: { href: `${self}/api/v4/leads` } }, _embedded: { leads: updated } });
  }));

  app.get('/:subdomain/api/v4/leads/pipelines', withAccount((req, reply, account) => {
    const self = `${origin(req)}/${account.subdomain}`;
    const pipelines = crmOf(account).pipelines.map((p) => ({
      id: p.id,
      name: p.name,
      sort: p.sort,
      is_main: p.isMain,
      is_unsorted_on: true,
      is_archive: false,
      account_id: account.id,
      _links: { self: { href: `${self}/api/v4/leads/pipelines/${p.id}` } },
      _embedded: {
        statuses: p.statuses.map((s) => ({
          id: s.id,
          name: s.name,
          sort: s.sort,
          is_editable: s.type === 0 && s.id !== 142 && s.id !== 143,
          pipeline_id: p.id,
          color: s.color,
          type: s.type,
          account_id: account.id,
          _links: { self: { href: `${self}/api/v4/leads/pipelines/${p.id}/statuses/${s.id}` } },
        })),
      },
    }));
    return hal(reply, { _total_items: pipelines.length, _links: { self: { href: `${self}/api/v4/leads/pipelines` } }, _embedded: { pipelines } });
  }));
}
