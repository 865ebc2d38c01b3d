// Kommo API v4 simulator: see simulators/README.md.
import type { FastifyReply } from 'fastify';
import { createApp, Hangs, listen } from '../shared/server';
import type { ContactPatch } from './account';
import { registerKommoControl } from './control';
import { crmOf, type KommoFieldValue, type Lead, type Note, type Pipeline } from './crm';
import type { KommoEvent } from './events';
import type { KommoFault } from './faults';
import { problem } from './replies';
import { registerKommoRoutes } from './routes';
import { KommoState, type AccountInput, type CreateLeadInput, type KommoConfig, type KommoStats, type LeadMoveInput } from './state';
import type { WebhookControl, WebhookStats } from './webhook-delivery';
import type { Webhook } from './webhook-subscriptions';

export type {
  ContactPatch, KommoFault, AccountInput, KommoConfig, KommoStats, Lead, Note, Pipeline,
  CreateLeadInput, LeadMoveInput, KommoFieldValue, KommoEvent, Webhook, WebhookControl, WebhookStats,
};
export { WEBHOOK_SETTINGS } from './webhook-subscriptions';
export { MAX_ATTEMPTS as WEBHOOK_MAX_ATTEMPTS, BACKOFF_MS as WEBHOOK_BACKOFF_MS, ANSWER_TIMEOUT_MS as WEBHOOK_ANSWER_TIMEOUT_MS } from './webhook-delivery';

export interface KommoSimOptions {
  port?: number;
  host?: string;
  seed?: number;
  accounts?: AccountInput[];
  rps?: number;
  blockAfter429s?: number;
  blockSeconds?: number;
  retryAfterSeconds?: number;
  latencyMs?: number;
}

export interface KommoSim {
  url: string;
  /** `${url}/{subdomain}`: the value for KOMMO_BASE_URL. */
  baseUrlTemplate: string;
  addAccount(a: AccountInput): void;
  updateContact(subdomain: string, kommoId: number, patch: ContactPatch): void;
  deleteContact(subdomain: string, kommoId: number): void;
  /** Returns the new ids. */
  addContacts(subdomain: string, n: number): number[];
  /** Brings a deleted contact back (contact_restored event, restore_contact webhook). */
  restoreContact(subdomain: string, kommoId: number): void;
  /** A new lead of an existing contact or of a new one (add_contact, then add_lead). */
  createLead(subdomain: string, input: CreateLeadInput): Lead;
  /** Moves one lead (status_lead and update_lead webhooks, lead_status_changed event). */
  moveLead(subdomain: string, leadId: number, statusId: number, pipelineId?: number): Lead;
  /** Moves several leads, all or none; `perPost` leads per webhook POST (default 1). */
  moveLeads(subdomain: string, moves: LeadMoveInput[], opts?: { perPost?: number }): Lead[];
  configureWebhooks(p: Partial<WebhookControl>): void;
  webhookStats(): WebhookStats;
  /** Resolves when no webhook POST is queued, in flight or waiting for a retry. */
  flushWebhooks(): Promise<void>;
  /** The account's webhook subscriptions. */
  webhooks(subdomain: string): Webhook[];
  /** The account's event feed, oldest first. */
  events(subdomain: string): KommoEvent[];
  injectFault(f: KommoFault): void;
  configure(p: Partial<Pick<KommoConfig, 'rps' | 'latencyMs' | 'blockAfter429s' | 'blockSeconds' | 'retryAfterSeconds'>>): void;
  stats(): KommoStats;
  fields(subdomain: string): { phoneFieldId: number; emailFieldId: number; custom: Array<{ id: number; name: string; type: string }> };
  reset(): void;
  close(): Promise<void>;
  /** Write-back inspection: notes of the account (of one contact when given). */
  notes(subdomain: string, contactId?: number): Note[];
  /** A contact's current tags. */
  tagsOf(subdomain: string, contactId: number): string[];
  /** A contact's leads as they are now. */
  leadsOf(subdomain: string, contactId: number): Lead[];
  pipelines(subdomain: string): Pipeline[];
}

export async function startKommoSim(opts: KommoSimOptions = {}): Promise<KommoSim> {
  const state = new KommoState(
    {
      rps: opts.rps ?? 7,
      blockAfter429s: opts.blockAfter429s ?? 3,
      blockSeconds: opts.blockSeconds ?? 30,
      retryAfterSeconds: opts.retryAfterSeconds ?? 1,
      latencyMs: opts.latencyMs ?? 0,
    },
    opts.seed ?? 1,
  );
  for (const a of opts.accounts ?? []) state.addAccount(a);

  const hangs = new Hangs();
  const app = createApp();
  app.addHook('onResponse', async (req, reply) => {
    if (!req.url.startsWith('/__control')) state.recordStatus(reply.statusCode);
  });
  app.setNotFoundHandler((_req, reply) => problem(reply, 404, 'Not found'));
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply: FastifyReply) => {
    // Control calls fail because of what the caller sent; an API error without a status is our bug.
    if (req.url.startsWith('/__control')) return reply.code(err.statusCode ?? 400).send({ error: err.message });
    return problem(reply, err.statusCode ?? 500, err.message);
  });
  registerKommoRoutes(app, state, hangs);
  registerKommoControl(app, state);
  app.addHook('onClose', async () => hangs.releaseAll());

  const url = await listen(app, opts.port ?? 0, opts.host ?? '127.0.0.1');
  state.publicUrl = url;
  return {
    url,
    baseUrlTemplate: `${url}/{subdomain}`,
    addAccount: (a) => void state.addAccount(a),
    updateContact: (s, id, patch) => state.updateContact(s, id, patch),
    deleteContact: (s, id) => state.deleteContact(s, id),
    addContacts: (s, n) => state.addContacts(s, n),
    restoreContact: (s, id) => state.restoreContact(s, id),
    createLead: (s, input) => state.createLead(s, input),
    moveLead: (s, id, statusId, pipelineId) => state.moveLead(s, id, statusId, pipelineId),
    moveLeads: (s, moves, o) => state.moveLeads(s, moves, o),
    configureWebhooks: (p) => state.configureWebhooks(p),
    webhookStats: () => state.webhookStats(),
    flushWebhooks: () => state.webhooks.flush(),
    webhooks: (s) => state.subscriptions(s),
    events: (s) => state.feed(s).events.all(),
    injectFault: (f) => state.injectFault(f),
    configure: (p) => state.configure(p),
    stats: () => state.stats(),
    fields: (s) => state.fields(s),
    reset: () => state.reset(),
    notes: (s, contactId) => {
      const crm = crmOf(state.account(s));
      return contactId === undefined ? [...crm.notes] : [...crm.notesOf(contactId)];
    },
    tagsOf: (s, id) => state.account(s).resolve(id).tags,
    leadsOf: (s, id) => {
      const crm = crmOf(state.account(s));
      return crm.leadIdsOf(id).map((l) => crm.lead(l)!);
    },
    pipelines: (s) => crmOf(state.account(s)).pipelines,
    close: async () => {
      hangs.releaseAll();
      await state.webhooks.close();
      await app.close();
    },
  };
}
