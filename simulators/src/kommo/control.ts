// /__control endpoints: drive a Kommo simulator running in another process (benchmarks, e2e, demo).
import type { FastifyInstance } from 'fastify';
import type { ContactPatch } from './account';
import type { KommoFault } from './faults';
import type { AccountInput, CreateLeadInput, KommoConfig, KommoState, LeadMoveInput } from './state';
import { crmOf } from './crm';
import type { WebhookControl } from './webhook-delivery';

type Obj = Record<string, any>;

/** A move as control calls send it: `{id, status_id, pipeline_id?}` (camelCase also accepted). */
function moveOf(m: Obj): LeadMoveInput {
  const pipelineId = m.pipeline_id ?? m.pipelineId;
  return { id: Number(m.id), statusId: Number(m.status_id ?? m.statusId), pipelineId: pipelineId === undefined ? undefined : Number(pipelineId) };
}

function createLeadOf(b: Obj): CreateLeadInput {
  const contactId = b.contact_id ?? b.contactId;
  const pipelineId = b.pipeline_id ?? b.pipelineId;
  return {
    contactId: contactId === undefined ? undefined : Number(contactId),
    newContact: b.new_contact ?? b.newContact,
    pipelineId: pipelineId === undefined ? undefined : Number(pipelineId),
    statusId: Number(b.status_id ?? b.statusId),
    name: b.name,
    price: b.price,
    customFieldsValues: b.custom_fields_values ?? b.customFieldsValues,
  };
}

export function registerKommoControl(app: FastifyInstance, state: KommoState): void {
  // Control calls answer {ok:true} or 400 {error}; the simulator's own mistakes are the caller's bug.
  const act = (fn: (body: any) => unknown) => async (req: { body: unknown }) => {
    const result = fn(req.body ?? {});
    return result === undefined ? { ok: true } : result;
  };

  app.post('/__control/accounts', act((b: AccountInput) => {
    const a = state.addAccount(b);
    return { ok: true, subdomain: a.subdomain, accountId: a.id, contacts: a.size };
  }));
  app.post('/__control/contacts/update', act((b: { subdomain: string; id: number; patch: ContactPatch }) =>
    state.updateContact(b.subdomain, b.id, b.patch ?? {})));
  app.post('/__control/contacts/delete', act((b: { subdomain: string; id: number }) => state.deleteContact(b.subdomain, b.id)));
  app.post('/__control/contacts/add', act((b: { subdomain: string; n: number }) => void state.addContacts(b.subdomain, b.n)));
  app.post('/__control/contacts/restore', act((b: { subdomain: string; id: number }) => state.restoreContact(b.subdomain, b.id)));
  // Leads: create one, move one or many (the moves announce themselves by webhook and event).
  app.post('/__control/leads', act((b: Obj) => ({ ok: true, lead: state.createLead(b.subdomain, createLeadOf(b)) })));
  app.post('/__control/leads/move', act((b: Obj) => {
    if (Array.isArray(b.moves)) {
      return { ok: true, leads: state.moveLeads(b.subdomain, b.moves.map(moveOf), { perPost: b.per_post ?? b.perPost }) };
    }
    const m = moveOf(b);
    return { ok: true, leads: [state.moveLead(b.subdomain, m.id, m.statusId, m.pipelineId)] };
  }));
  // Webhook delivery: switch off, duplicate, fail on command; inspect subscriptions and counters.
  app.post('/__control/webhooks/configure', act((b: Obj) => {
    const p: Partial<WebhookControl> = { enabled: b.enabled, duplicates: b.duplicates, failFirst: b.failFirst ?? b.fail_first };
    state.configureWebhooks(p);
    return { ok: true, ...state.webhooks.control };
  }));
  app.get<{ Querystring: { subdomain?: string } }>('/__control/webhooks', async (req) => ({ webhooks: state.subscriptions(req.query.subdomain ?? '') }));
  app.get('/__control/webhooks/stats', async () => state.webhookStats());
  app.post('/__control/webhooks/flush', async () => {
    await state.webhooks.flush();
    return { ok: true, ...state.webhookStats() };
  });
  app.post('/__control/fault', act((b: KommoFault) => state.injectFault(b)));
  app.post('/__control/configure', act((b: Partial<KommoConfig>) => state.configure(b)));
  app.post('/__control/reset', act(() => state.reset()));
  app.get('/__control/stats', async () => state.stats());
  app.get<{ Querystring: { subdomain?: string } }>('/__control/fields', async (req) => state.fields(req.query.subdomain ?? ''));
  // Write-back inspection (demo, e2e): the notes of an account, or of one contact, and a contact's tags and leads.
  app.get<{ Querystring: { subdomain?: string; contact?: string } }>('/__control/notes', async (req) => {
    const crm = crmOf(state.account(req.query.subdomain ?? ''));
    const id = Number(req.query.contact);
    return { notes: Number.isInteger(id) && id > 0 ? crm.notesOf(id) : crm.notes };
  });
  app.get<{ Querystring: { subdomain?: string; id?: string } }>('/__control/contact', async (req) => {
    const account = state.account(req.query.subdomain ?? '');
    const id = Number(req.query.id);
    if (!account.exists(id)) throw new Error(`contact ${req.query.id} does not exist`);
    const crm = crmOf(account);
    return { id, tags: account.resolve(id).tags, notes: crm.notesOf(id), leads: crm.leadIdsOf(id).map((l) => crm.lead(l)) };
  });
  app.get('/__control/accounts', async () =>
    [...state.accounts.values()].map((a) => ({ subdomain: a.subdomain, accountId: a.id, contacts: a.size, seed: a.seed })));
}
