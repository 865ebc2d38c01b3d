// /__control endpoints: drive a Kommo simulator running in another process (benchmarks, e2e, demo).
import type { FastifyInstance } from 'fastify';
import type { ContactPatch } from './account';
import type { KommoFault } from './faults';
import type { AccountInput, KommoConfig, KommoState } from './state';
import { crmOf } from './crm';

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
  app.post('/__control/contacts/add', act((b: { subdomain: string; n: number }) => state.addContacts(b.subdomain, b.n)));
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
