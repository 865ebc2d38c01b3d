// Meta's 2025–26 rules, as the simulator plays them: portfolio messaging limits, per-user marketing
// limits, marketing opt-out, template pauses and recategorisation, business-scoped user ids
// (usernames), the throughput upgrade, coexistence numbers, pricing types and account bans.
// Everything is off by default (shares 0, enforcement false) so existing behaviour is unchanged;
// the switches are listed in docs/architecture/meta-rules.md ("The simulator: Meta's 2025–26 rules").
import type { PhoneNumber } from './phone-numbers';
import type { Template, TemplateStore } from './templates';
import type { MetaRulesConfig } from './types';
import { envelope, messagesValue, type WebhookDispatcher } from './webhooks';

const DAY_MS = 24 * 3600_000;
const HOUR_MS = 3600_000;

export const DEFAULT_RULES: MetaRulesConfig = {
  enforcePortfolioLimit: false,
  portfolioLimitCode: 131049,
  legacyLimitShape: 'off',
  marketingLimitShare: 0,
  usMarketingBlocked: false,
  usernameShare: 0,
  bsuidInAllStatuses: false,
  heldForQualityShare: 0,
  heldWindowMs: 15 * 60_000,
  pauseOnRed: true,
  pauseDurationsMs: [3 * HOUR_MS, 6 * HOUR_MS],
  throughputUpgradeMs: 5_000,
  pricingBillableField: true,
  marketingLite: false,
  freeEntryPoint: false,
  valueErrorsShare: 0,
};

/** Portfolio limits Meta uses; -1 is unlimited. */
export const PORTFOLIO_LIMITS = [250, 2000, 10000, 100000, -1] as const;

const TIER_OF: Record<string, string> = { 250: 'TIER_250', 2000: 'TIER_2K', 10000: 'TIER_10K', 100000: 'TIER_100K', '-1': 'TIER_UNLIMITED' };
const LIMIT_OF: Record<string, number> = { TIER_50: 250, TIER_250: 250, TIER_1K: 2000, TIER_2K: 2000, TIER_10K: 10000, TIER_100K: 100000, TIER_UNLIMITED: -1 };

export function tierOf(limit: number): string {
  return TIER_OF[String(limit)] ?? 'TIER_10K';
}

export function limitOfTier(tier: string): number {
  return LIMIT_OF[tier] ?? 10000;
}

/** FNV-1a over a string, as a fraction in [0, 1): deterministic "random" draws. */
export function draw(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3's fmix32): keys that differ only in their last character still land far apart.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

const COUNTRY_PREFIXES: Array<[string, string]> = [
  ['598', 'UY'], ['595', 'PY'], ['593', 'EC'], ['591', 'BO'], ['54', 'AR'], ['52', 'MX'], ['57', 'CO'], ['34', 'ES'],
  ['56', 'CL'], ['55', 'BR'], ['51', 'PE'], ['58', 'VE'], ['44', 'GB'], ['49', 'DE'], ['1', 'US'],
];

function countryOf(digits: string): string {
  for (const [prefix, cc] of COUNTRY_PREFIXES) if (digits.startsWith(prefix)) return cc;
  return 'ZZ';
}

/** A business-scoped user id: `CC.` + digits, stable per (portfolio, phone). */
export function makeBsuid(businessId: string, digits: string): string {
  const a = Math.floor(draw(`${businessId}|${digits}|a`) * 1e10).toString().padStart(10, '0');
  const b = Math.floor(draw(`${businessId}|${digits}|b`) * 1e10).toString().padStart(10, '0');
  return `${countryOf(digits)}.${a}${b}`;
}

/** `CC.alnum` or the parent form `CC.ENT.alnum`. */
export const BSUID = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;

export interface Identity {
  /** Key for windows and preferences: the phone digits, or the BSUID when no phone is known. */
  key: string;
  /** Phone digits (wa_id form) or null when only the BSUID is known. */
  waId: string | null;
  bsuid: string;
  /** A username user: webhooks carry the BSUID and no phone. */
  username: boolean;
}

interface Portfolio {
  id: string;
  name: string;
  limit: number;
  /** Unique users reached outside a service window: key -> last time (rules clock). */
  reached: Map<string, number>;
}

type TemplateEvent = 'PAUSE' | 'UNPAUSE' | 'REINSTATE' | 'FLAG' | 'DISABLE';

interface AccountState {
  banned: boolean;
  restrictedUntil: number;
}

export class MetaRules {
  readonly config: MetaRulesConfig = { ...DEFAULT_RULES, pauseDurationsMs: [...DEFAULT_RULES.pauseDurationsMs] };
  private portfolios = new Map<string, Portfolio>();
  private usernames = new Map<string, boolean>();
  private bsuidToDigits = new Map<string, string>();
  private marketingStopped = new Set<string>();
  private accounts = new Map<string, AccountState>();
  private pauses = new Map<string, number>();
  private firstSendAt = new Map<string, number>();
  private timers = new Set<NodeJS.Timeout>();
  private pauseTimers = new Map<string, NodeJS.Timeout>();
  private upgrading = new Map<string, number>();
  private clockOffsetMs = 0;

  constructor(private readonly webhooks: WebhookDispatcher, private readonly templates: TemplateStore) {}

  /** The clock of the 24 h rules; advanceClock() moves it forward for tests. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  advanceClock(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new Error('ms must be a non-negative number');
    this.clockOffsetMs += ms;
  }

  configure(p: Partial<MetaRulesConfig> | undefined): void {
    if (!p || typeof p !== 'object') return;
    const c = this.config;
    for (const key of ['marketingLimitShare', 'usernameShare', 'heldForQualityShare', 'valueErrorsShare'] as const) {
      const v = p[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || v < 0 || v > 1) throw new Error(`${key} must be between 0 and 1`);
      c[key] = v;
    }
    for (const key of ['portfolioLimitCode', 'heldWindowMs', 'throughputUpgradeMs'] as const) {
      const v = p[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${key} must be a non-negative number`);
      c[key] = v;
    }
    if (p.throughputUpgradeMs !== undefined && p.throughputUpgradeMs > 60_000) throw new Error('throughputUpgradeMs is at most 60000 (Meta: up to 1 minute)');
    for (const key of ['enforcePortfolioLimit', 'usMarketingBlocked', 'bsuidInAllStatuses', 'pauseOnRed', 'pricingBillableField', 'marketingLite', 'freeEntryPoint'] as const) {
      if (p[key] !== undefined) c[key] = Boolean(p[key]);
    }
    if (p.legacyLimitShape !== undefined) {
      if (!['off', 'also', 'only'].includes(p.legacyLimitShape)) throw new Error("legacyLimitShape must be 'off', 'also' or 'only'");
      c.legacyLimitShape = p.legacyLimitShape;
    }
    if (p.pauseDurationsMs !== undefined) {
      const d = p.pauseDurationsMs;
      if (!Array.isArray(d) || d.length !== 2 || d.some((x) => typeof x !== 'number' || x < 0)) throw new Error('pauseDurationsMs must be [first, second] in ms');
      c.pauseDurationsMs = [d[0], d[1]];
    }
    this.webhooks.valueErrorsShare = c.valueErrorsShare;
  }

  // ---- portfolios ---------------------------------------------------------------------------

  /** Registers a number's portfolio (first number of a portfolio sets its starting limit). */
  attach(n: PhoneNumber): void {
    if (!this.portfolios.has(n.businessId)) {
      this.portfolios.set(n.businessId, { id: n.businessId, name: `Portafolio ${n.businessId}`, limit: limitOfTier(n.messagingLimit), reached: new Map() });
    }
  }

  portfolio(businessId: string): Portfolio {
    const p = this.portfolios.get(businessId);
    if (!p) throw new Error(`no business portfolio ${businessId}`);
    return p;
  }

  portfolioUsage(businessId: string): { businessId: string; limit: number; tier: string; used: number } {
    const p = this.portfolio(businessId);
    this.sweep(p);
    return { businessId, limit: p.limit, tier: tierOf(p.limit), used: p.reached.size };
  }

  private sweep(p: Portfolio): void {
    const now = this.now();
    for (const [k, t] of p.reached) if (now - t >= DAY_MS) p.reached.delete(k);
  }

  /** True when sending to this user would start one unique user more than the portfolio allows. */
  overPortfolioLimit(n: PhoneNumber, userKey: string): boolean {
    if (!this.config.enforcePortfolioLimit) return false;
    const p = this.portfolio(n.businessId);
    if (p.limit < 0) return false;
    this.sweep(p);
    return !p.reached.has(userKey) && p.reached.size >= p.limit;
  }

  /** Remembers a user reached; only while the limit is enforced, so long runs without it keep no state. */
  countReached(n: PhoneNumber, userKey: string): void {
    if (!this.config.enforcePortfolioLimit) return;
    this.portfolio(n.businessId).reached.set(userKey, this.now());
  }

  /**
   * Changes a portfolio's limit and posts, for every WABA of the portfolio, `business_capability_update`
   * and, for every number, `phone_number_quality_update` (UPGRADE / DOWNGRADE).
   */
  setMessagingLimit(businessId: string, limit: number, numbers: PhoneNumber[]): void {
    if (!(PORTFOLIO_LIMITS as readonly number[]).includes(limit)) throw new Error(`limit must be one of ${PORTFOLIO_LIMITS.join(', ')}`);
    const p = this.portfolio(businessId);
    const old = p.limit;
    p.limit = limit;
    const mine = numbers.filter((n) => n.businessId === businessId);
    for (const n of mine) n.messagingLimit = tierOf(limit);
    const legacy = this.config.legacyLimitShape !== 'off';
    const time = Math.floor(Date.now() / 1000);
    for (const wabaId of new Set(mine.map((n) => n.wabaId))) {
      const value: Record<string, unknown> = {
        max_daily_conversations_per_business: limit,
        max_phone_numbers_per_business: 20,
        max_phone_numbers_per_waba: 20,
      };
      if (legacy) value.max_daily_conversation_per_phone = limit;
      void this.webhooks.post(envelope(wabaId, 'business_capability_update', value, { time }));
    }
    const grows = old >= 0 && (limit < 0 || limit > old);
    for (const n of mine) {
      const value: Record<string, unknown> = {
        display_phone_number: n.displayPhoneNumber,
        event: grows ? 'UPGRADE' : 'DOWNGRADE',
        max_daily_conversations_per_business: tierOf(limit),
      };
      if (legacy) {
        value.old_limit = tierOf(old);
        value.current_limit = tierOf(limit);
      }
      void this.webhooks.post(envelope(n.wabaId, 'phone_number_quality_update', value, { time }));
    }
  }

  // ---- users, BSUIDs, preferences -----------------------------------------------------------

  setUsernameUser(phoneDigits: string, on: boolean): void {
    this.usernames.set(String(phoneDigits).replace(/\D/g, ''), Boolean(on));
  }

  private isUsername(digits: string): boolean {
    const set = this.usernames.get(digits);
    if (set !== undefined) return set;
    return this.config.usernameShare > 0 && draw(`username|${digits}`) < this.config.usernameShare;
  }

  bsuidOf(businessId: string, phoneDigits: string): string {
    const digits = String(phoneDigits).replace(/\D/g, '');
    const id = makeBsuid(businessId, digits);
    this.bsuidToDigits.set(`${businessId}|${id}`, digits);
    return id;
  }

  /** Who a phone (digits, wa_id form) or a BSUID is, for the number's portfolio. */
  identify(n: PhoneNumber, who: { waId?: string; bsuid?: string }): Identity {
    if (who.waId) {
      const waId = who.waId;
      const username = this.isUsername(waId);
      // The BSUID is computed (and remembered) only when a payload needs it: sends stay cheap.
      let bsuid: string | null = null;
      const get = () => (bsuid ??= this.bsuidOf(n.businessId, waId));
      return { key: waId, waId, username, get bsuid() { return get(); } };
    }
    const bsuid = who.bsuid as string;
    const digits = this.bsuidToDigits.get(`${n.businessId}|${bsuid}`) ?? null;
    // A BSUID we never handed out stands for a username user whose phone nobody knows.
    return { key: digits ?? bsuid, waId: digits, bsuid, username: digits === null || this.isUsername(digits) };
  }

  isMarketingStopped(key: string): boolean {
    return this.marketingStopped.has(key);
  }

  /** The user stops or resumes marketing: posts `user_preferences` from the given number. */
  setMarketingPreference(n: PhoneNumber, who: Identity, value: 'stop' | 'resume'): Promise<void> {
    if (value !== 'stop' && value !== 'resume') throw new Error("value must be 'stop' or 'resume'");
    if (value === 'stop') this.marketingStopped.add(who.key);
    else this.marketingStopped.delete(who.key);
    const contact: Record<string, unknown> = { profile: { name: `Cliente ${who.key.slice(-4)}` } };
    const pref: Record<string, unknown> = {
      detail: value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
      category: 'marketing_messages',
      value,
      timestamp: Math.floor(Date.now() / 1000),
    };
    if (who.waId && !who.username) {
      contact.wa_id = who.waId;
      pref.wa_id = who.waId;
    }
    contact.user_id = who.bsuid;
    pref.user_id = who.bsuid;
    return this.webhooks.post(envelope(n.wabaId, 'user_preferences', messagesValue(n, { contacts: [contact], user_preferences: [pref] })));
  }

  /** Per-user marketing limit: a deterministic share of (user, day) pairs get 131049. */
  marketingLimited(userKey: string): boolean {
    const share = this.config.marketingLimitShare;
    if (share <= 0) return false;
    const day = Math.floor(this.now() / DAY_MS);
    return draw(`mkt|${userKey}|${day}`) < share;
  }

  /** Marketing sends to new marketing templates may be held for a quality check. */
  held(t: Template, wamid: string): boolean {
    if (this.config.heldForQualityShare <= 0 || t.category !== 'MARKETING') return false;
    const key = t.id;
    const first = this.firstSendAt.get(key) ?? Date.now();
    this.firstSendAt.set(key, first);
    return Date.now() - first < this.config.heldWindowMs && draw(`held|${wamid}`) < this.config.heldForQualityShare;
  }

  // ---- templates ----------------------------------------------------------------------------

  private templateValue(t: Template, event: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      event,
      message_template_id: Number(t.id),
      message_template_name: t.name,
      message_template_language: t.language,
      reason: 'NONE',
      message_template_category: t.category,
      ...extra,
    };
  }

  private postTemplate(t: Template, field: string, value: Record<string, unknown>): void {
    void this.webhooks.post(envelope(t.wabaId, field, value, { time: Math.floor(Date.now() / 1000) }));
  }

  /** Quality score change (message_template_quality_update); RED walks the pause ladder. */
  setTemplateQuality(t: Template, score: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN'): void {
    if (!['GREEN', 'YELLOW', 'RED', 'UNKNOWN'].includes(score)) throw new Error('score must be GREEN, YELLOW, RED or UNKNOWN');
    const previous = t.quality_score.score;
    t.quality_score = { score, date: Math.floor(Date.now() / 1000) };
    this.postTemplate(t, 'message_template_quality_update', {
      previous_quality_score: previous,
      new_quality_score: score,
      message_template_id: Number(t.id),
      message_template_name: t.name,
      message_template_language: t.language,
    });
    if (score === 'RED' && this.config.pauseOnRed && t.status === 'APPROVED') this.templateEvent(t, 'PAUSE');
  }

  /** The pause ladder and its neighbours, each announced by message_template_status_update. */
  templateEvent(t: Template, event: TemplateEvent): void {
    const key = t.id;
    if (event !== 'FLAG') this.clearPauseTimer(key);
    switch (event) {
      case 'PAUSE': {
        const count = (this.pauses.get(key) ?? 0) + 1;
        this.pauses.set(key, count);
        if (count >= 3) return this.templateEvent(t, 'DISABLE');
        const hours = count === 1 ? 3 : 6;
        const ms = this.config.pauseDurationsMs[count - 1];
        t.status = 'PAUSED';
        const until = new Date(Date.now() + hours * HOUR_MS).toUTCString();
        this.postTemplate(t, 'message_template_status_update', this.templateValue(t, 'PAUSED', {
          other_info: {
            title: count === 1 ? 'FIRST_PAUSE' : 'SECOND_PAUSE',
            description: `Your WhatsApp message template has been paused for ${hours} hours until ${until} because it ${count === 1 ? 'had issues' : 'continued to have issues'}.`,
          },
        }));
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.pauseTimers.delete(key);
          if (t.status === 'PAUSED') this.templateEvent(t, 'UNPAUSE');
        }, ms);
        timer.unref();
        this.timers.add(timer);
        this.pauseTimers.set(key, timer);
        return;
      }
      case 'UNPAUSE':
        t.status = 'APPROVED';
        return this.postTemplate(t, 'message_template_status_update', this.templateValue(t, 'APPROVED', {
          other_info: { title: 'UNPAUSED', description: 'Your WhatsApp message template has been unpaused.' },
        }));
      case 'REINSTATE':
        t.status = 'APPROVED';
        this.pauses.delete(key);
        return this.postTemplate(t, 'message_template_status_update', this.templateValue(t, 'REINSTATED'));
      case 'FLAG':
        return this.postTemplate(t, 'message_template_status_update', this.templateValue(t, 'FLAGGED', {
          disable_info: { disable_date: Math.floor((Date.now() + 7 * DAY_MS) / 1000) },
        }));
      case 'DISABLE':
        t.status = 'DISABLED';
        return this.postTemplate(t, 'message_template_status_update', this.templateValue(t, 'DISABLED', {
          disable_info: { disable_date: Math.floor(Date.now() / 1000) },
        }));
      default:
        throw new Error('event must be PAUSE, UNPAUSE, REINSTATE, FLAG or DISABLE');
    }
  }

  /** A later event (unpause, reinstatement, another pause) replaces the pending unpause. */
  private clearPauseTimer(key: string): void {
    const timer = this.pauseTimers.get(key);
    if (!timer) return;
    clearTimeout(timer);
    this.timers.delete(timer);
    this.pauseTimers.delete(key);
  }

  /** template_category_update: impending (warning, category unchanged) or completed (changed). */
  templateCategoryUpdate(t: Template, newCategory: Template['category'], impending: boolean, inMs = DAY_MS): void {
    if (!['MARKETING', 'UTILITY', 'AUTHENTICATION'].includes(newCategory)) throw new Error('newCategory must be MARKETING, UTILITY or AUTHENTICATION');
    const base = { message_template_id: Number(t.id), message_template_name: t.name, message_template_language: t.language };
    if (impending) {
      this.postTemplate(t, 'template_category_update', {
        ...base,
        correct_category: newCategory,
        new_category: t.category,
        category_update_timestamp: Math.floor((Date.now() + inMs) / 1000),
      });
      return;
    }
    const previous = t.category;
    t.category = newCategory;
    this.postTemplate(t, 'template_category_update', { ...base, previous_category: previous, new_category: newCategory });
  }

  // ---- throughput ---------------------------------------------------------------------------

  isUpgrading(n: PhoneNumber): boolean {
    const until = this.upgrading.get(n.phoneNumberId);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.upgrading.delete(n.phoneNumberId);
    return false;
  }

  /** 131057 for `throughputUpgradeMs`, then 1,000 msg/s and a THROUGHPUT_UPGRADE webhook. */
  upgradeThroughput(n: PhoneNumber, durationMs = this.config.throughputUpgradeMs): Promise<void> {
    if (n.coexistence) throw new Error('coexistence numbers are fixed at 20 messages per second');
    if (!Number.isFinite(durationMs) || durationMs < 0 || durationMs > 60_000) throw new Error('durationMs must be between 0 and 60000');
    this.upgrading.set(n.phoneNumberId, Date.now() + durationMs);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.upgrading.delete(n.phoneNumberId);
        n.throughput = 1000;
        const p = this.portfolio(n.businessId);
        const value: Record<string, unknown> = {
          display_phone_number: n.displayPhoneNumber,
          event: 'THROUGHPUT_UPGRADE',
          max_daily_conversations_per_business: tierOf(p.limit),
        };
        if (this.config.legacyLimitShape !== 'off') value.current_limit = tierOf(p.limit);
        void this.webhooks.post(envelope(n.wabaId, 'phone_number_quality_update', value, { time: Math.floor(Date.now() / 1000) })).then(resolve);
      }, durationMs);
      timer.unref();
      this.timers.add(timer);
    });
  }

  // ---- account ------------------------------------------------------------------------------

  /** True when the WABA may not send business-initiated messages (ban or restriction). */
  blocked(wabaId: string): boolean {
    const a = this.accounts.get(wabaId);
    return !!a && (a.banned || Date.now() < a.restrictedUntil);
  }

  /**
   * Posts an `account_update`. DISABLED_UPDATE with banState DISABLE bans the WABA (sends get 131031)
   * and REINSTATE lifts it; ACCOUNT_RESTRICTION with RESTRICTED_BIZ_INITIATED_MESSAGING blocks sends
   * until `expiration`.
   */
  accountUpdate(wabaId: string, p: AccountUpdateInput, phoneNumber?: string): Promise<void> {
    const state = this.accounts.get(wabaId) ?? { banned: false, restrictedUntil: 0 };
    this.accounts.set(wabaId, state);
    const value: Record<string, unknown> = { event: p.event };
    if (phoneNumber) value.phone_number = phoneNumber;
    switch (p.event) {
      case 'DISABLED_UPDATE': {
        const banState = p.banState ?? 'DISABLE';
        if (!['DISABLE', 'REINSTATE', 'SCHEDULE_FOR_DISABLE'].includes(banState)) throw new Error('banState must be DISABLE, REINSTATE or SCHEDULE_FOR_DISABLE');
        state.banned = banState === 'DISABLE';
        value.ban_info = { waba_ban_state: banState, waba_ban_date: new Date().toISOString().slice(0, 10) };
        break;
      }
      case 'ACCOUNT_RESTRICTION': {
        const type = p.restrictionType ?? 'RESTRICTED_BIZ_INITIATED_MESSAGING';
        const expiration = p.expiresInMs ?? DAY_MS;
        if (type === 'RESTRICTED_BIZ_INITIATED_MESSAGING') state.restrictedUntil = Date.now() + expiration;
        value.restriction_info = [{ restriction_type: type, expiration: new Date(Date.now() + expiration).toISOString().replace(/\.\d{3}Z$/, '+0000') }];
        break;
      }
      case 'ACCOUNT_VIOLATION':
        value.violation_info = { violation_type: p.violationType ?? 'SPAM' };
        break;
      default:
        if (typeof p.event !== 'string' || !/^[A-Z_]+$/.test(p.event)) throw new Error('event is required');
    }
    return this.webhooks.post(envelope(wabaId, 'account_update', value, { time: Math.floor(Date.now() / 1000) }));
  }

  reset(): void {
    for (const p of this.portfolios.values()) p.reached.clear();
    this.upgrading.clear();
    this.firstSendAt.clear();
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.pauseTimers.clear();
  }
}

export interface AccountUpdateInput {
  event: 'DISABLED_UPDATE' | 'ACCOUNT_RESTRICTION' | 'ACCOUNT_VIOLATION' | string;
  banState?: 'DISABLE' | 'REINSTATE' | 'SCHEDULE_FOR_DISABLE';
  restrictionType?: string;
  expiresInMs?: number;
  violationType?: string;
}

export type { TemplateEvent };
