// Everything a running Kommo simulator knows: accounts, settings, limits, faults and statistics.
// Both the programmatic API and the /__control endpoints act on this object.
import { KommoAccount, type ContactPatch } from './account';
import { crmOf, type KommoFieldValue, type Lead, type LeadMove } from './crm';
import { AccountFeed } from './feed';
import { AccountGate, type GateResult, type LimitConfig } from './limits';
import { FaultQueue, type KommoFault } from './faults';
import { KommoWebhookDispatcher, type WebhookControl, type WebhookStats } from './webhook-delivery';
import type { Webhook } from './webhook-subscriptions';

export interface AccountInput {
  subdomain: string;
  token: string;
  contacts?: number;
  seed?: number;
}

export interface KommoConfig extends LimitConfig {
  retryAfterSeconds: number;
  latencyMs: number;
}

export interface KommoStats {
  requests: number;
  by_status: Record<string, number>;
  count429: number;
  count403: number;
  perSecondMax: number;
}

export interface CreateLeadInput {
  /** An existing contact becomes the main contact… */
  contactId?: number;
  /** …or a new one is created (it shows up in /api/v4/contacts and is announced as added). */
  newContact?: { name: string; phone: string };
  /** Default: the main pipeline. */
  pipelineId?: number;
  statusId: number;
  name?: string;
  price?: number;
  customFieldsValues?: KommoFieldValue[] | null;
}

export interface LeadMoveInput {
  id: number;
  statusId: number;
  /** Default: the lead's current pipeline. */
  pipelineId?: number;
}

const SUBDOMAIN = /^[a-z0-9][a-z0-9-]{0,62}$/;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const DEFAULT_CONTACTS = 100;

export class KommoState {
  readonly accounts = new Map<string, KommoAccount>();
  readonly faults = new FaultQueue();
  readonly webhooks = new KommoWebhookDispatcher();
  /** The simulator's own URL, set once it listens (`account[_links][self]` in webhooks). */
  publicUrl = '';
  private feeds = new WeakMap<KommoAccount, AccountFeed>();
  private gates = new Map<string, AccountGate>();
  private requests = 0;
  private byStatus: Record<string, number> = {};

  constructor(
    readonly config: KommoConfig,
    private readonly defaultSeed: number,
  ) {}

  addAccount(a: AccountInput): KommoAccount {
    if (!SUBDOMAIN.test(a.subdomain)) throw new Error(`invalid subdomain ${JSON.stringify(a.subdomain)}`);
    if (!a.token) throw new Error('token is required');
    const contacts = a.contacts ?? DEFAULT_CONTACTS;
    if (!Number.isInteger(contacts) || contacts < 0) throw new Error('contacts must be a non-negative integer');
    const account = new KommoAccount(a.subdomain, a.token, a.seed ?? this.defaultSeed, contacts);
    this.accounts.set(a.subdomain, account);
    return account;
  }

  account(subdomain: string): KommoAccount {
    const account = this.accounts.get(subdomain);
    if (!account) throw new Error(`no Kommo account ${subdomain}`);
    return account;
  }

  /** The account's event feed and webhook subscriptions. */
  feedOf(account: KommoAccount): AccountFeed {
    let feed = this.feeds.get(account);
    if (!feed) {
      feed = new AccountFeed(account, this.webhooks, () => `${this.publicUrl}/${account.subdomain}`);
      this.feeds.set(account, feed);
    }
    return feed;
  }

  feed(subdomain: string): AccountFeed {
    return this.feedOf(this.account(subdomain));
  }

  updateContact(subdomain: string, id: number, patch: ContactPatch): void {
    this.account(subdomain).update(id, patch);
    this.feed(subdomain).contactsUpdated([id]);
  }

  deleteContact(subdomain: string, id: number): void {
    this.account(subdomain).delete(id);
    this.feed(subdomain).contactDeleted(id, nowSeconds());
  }

  restoreContact(subdomain: string, id: number): void {
    this.account(subdomain).restore(id);
    this.feed(subdomain).contactRestored(id);
  }

  addContacts(subdomain: string, n: number): number[] {
    const first = this.account(subdomain).add(n);
    const ids = Array.from({ length: n }, (_, i) => first + i);
    this.feed(subdomain).contactsAdded(ids);
    return ids;
  }

  createLead(subdomain: string, input: CreateLeadInput): Lead {
    const account = this.account(subdomain);
    const crm = crmOf(account);
    const pipelineId = input.pipelineId ?? crm.mainPipeline.id;
    if ((input.contactId === undefined) === (input.newContact === undefined)) throw new Error('give contactId or newContact (one of them)');
    if (input.contactId !== undefined && !account.exists(input.contactId)) throw new Error(`contact ${input.contactId} does not exist in ${subdomain}`);
    const why = crm.checkMove(pipelineId, input.statusId);
    if (why) throw new Error(`${why}: pipeline ${pipelineId}, status ${input.statusId}`);
    if (input.price !== undefined && (!Number.isInteger(input.price) || input.price < 0)) throw new Error('price must be a non-negative integer');
    if (input.newContact && (typeof input.newContact.name !== 'string' || typeof input.newContact.phone !== 'string')) {
      throw new Error('newContact needs a name and a phone');
    }
    let contactId = input.contactId;
    if (input.newContact) {
      const { name, phone } = input.newContact;
      contactId = account.addWith({
        name, first_name: name, last_name: '', phone, email: null, tags: [],
        custom: { Ciudad: null, Plan: null, 'Fecha de nacimiento': null, Origen: null },
      });
    }
    const lead = crm.createLead({ contactId: contactId!, pipelineId, statusId: input.statusId, name: input.name, price: input.price, customFieldsValues: input.customFieldsValues });
    const feed = this.feedOf(account);
    if (input.newContact) feed.contactsAdded([contactId!]);
    feed.leadAdded(lead);
    return lead;
  }

  moveLead(subdomain: string, id: number, statusId: number, pipelineId?: number): Lead {
    return this.moveLeads(subdomain, [{ id, statusId, pipelineId }])[0];
  }

  /**
   * Moves leads to stages, all or none (every move is checked first). A move to the stage the
   * lead is already in changes nothing and emits nothing, as in Kommo.
   */
  moveLeads(subdomain: string, moves: LeadMoveInput[], opts: { perPost?: number } = {}): Lead[] {
    const account = this.account(subdomain);
    const crm = crmOf(account);
    const perPost = opts.perPost ?? 1;
    if (!Number.isInteger(perPost) || perPost < 1) throw new Error('perPost must be a positive integer');
    const planned = moves.map((m) => {
      const lead = crm.lead(Number(m.id));
      if (!lead) throw new Error(`lead ${m.id} does not exist in ${subdomain}`);
      const pipelineId = m.pipelineId ?? lead.pipelineId;
      const why = crm.checkMove(pipelineId, m.statusId);
      if (why) throw new Error(`${why}: lead ${m.id}, pipeline ${pipelineId}, status ${m.statusId}`);
      return { lead, pipelineId, statusId: m.statusId };
    });
    const at = nowSeconds();
    const done: LeadMove[] = [];
    const result = planned.map((p) => {
      if (p.lead.statusId === p.statusId && p.lead.pipelineId === p.pipelineId) return p.lead;
      const move = crm.moveLead(p.lead.id, p.pipelineId, p.statusId, at);
      done.push(move);
      return move.lead;
    });
    if (done.length > 0) this.feedOf(account).leadsMoved(done, perPost);
    return result;
  }

  configureWebhooks(p: Partial<WebhookControl>): void {
    this.webhooks.configure(p);
  }

  webhookStats(): WebhookStats {
    return this.webhooks.stats();
  }

  subscriptions(subdomain: string): Webhook[] {
    return this.feed(subdomain).hooks.list();
  }

  injectFault(f: KommoFault): void {
    this.faults.add(f);
  }

  configure(p: Partial<KommoConfig>): void {
    for (const key of ['rps', 'latencyMs', 'blockAfter429s', 'blockSeconds', 'retryAfterSeconds'] as const) {
      const v = p[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${key} must be a non-negative number`);
      this.config[key] = v;
    }
  }

  fields(subdomain: string) {
    const f = this.account(subdomain).fields;
    return {
      phoneFieldId: f.phone.id,
      emailFieldId: f.email.id,
      custom: [f.position, f.ciudad, f.plan, f.birthDate, f.origen].map(({ id, name, type }) => ({ id, name, type })),
    };
  }

  /** Counts an arriving API request and applies the account's rate limit. */
  gate(subdomain: string, now: number): GateResult {
    this.requests++;
    let gate = this.gates.get(subdomain);
    if (!gate) {
      gate = new AccountGate();
      this.gates.set(subdomain, gate);
    }
    return gate.check(now, this.config);
  }

  recordStatus(status: number): void {
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
  }

  stats(): KommoStats {
    let perSecondMax = 0;
    for (const g of this.gates.values()) perSecondMax = Math.max(perSecondMax, g.arrivals.max);
    return {
      requests: this.requests,
      by_status: { ...this.byStatus },
      count429: this.byStatus['429'] ?? 0,
      count403: this.byStatus['403'] ?? 0,
      perSecondMax,
    };
  }

  reset(): void {
    this.requests = 0;
    this.byStatus = {};
    this.gates.clear();
    this.faults.clear();
    this.webhooks.reset();
  }
}
