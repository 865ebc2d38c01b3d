// Everything a running Kommo simulator knows: accounts, settings, limits, faults and statistics.
// Both the programmatic API and the /__control endpoints act on this object.
import { KommoAccount, type ContactPatch } from './account';
import { AccountGate, type GateResult, type LimitConfig } from './limits';
import { FaultQueue, type KommoFault } from './faults';

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

const SUBDOMAIN = /^[a-z0-9][a-z0-9-]{0,62}$/;
const DEFAULT_CONTACTS = 100;

export class KommoState {
  readonly accounts = new Map<string, KommoAccount>();
  readonly faults = new FaultQueue();
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

  updateContact(subdomain: string, id: number, patch: ContactPatch): void {
    this.account(subdomain).update(id, patch);
  }

  deleteContact(subdomain: string, id: number): void {
    this.account(subdomain).delete(id);
  }

  addContacts(subdomain: string, n: number): void {
    this.account(subdomain).add(n);
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
  }
}
