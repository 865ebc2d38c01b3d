// WhatsApp Cloud API simulator: see simulators/README.md.
import { createApp, Hangs, listen } from '../shared/server';
import { registerWhatsAppControl } from './control';
import { graphError } from './errors';
import { SIM_APP_ID } from './media';
import { registerGraphRoutes } from './routes';
import { WhatsAppState, type InboundInput, type ReplyInput } from './state';
import type { AccountUpdateInput, TemplateEvent } from './meta-rules';
import type {
  AutoReplies, LatencyJitter, MetaRulesConfig, NumberInput, RecipientBehaviour, RecordedMessage, TemplateInput, WhatsAppConfig, WhatsAppFault,
} from './types';

export type { AccountUpdateInput, AutoReplies, InboundInput, ReplyInput, LatencyJitter, MetaRulesConfig, NumberInput, RecipientBehaviour, RecordedMessage, TemplateEvent, TemplateInput, WhatsAppConfig, WhatsAppFault };
export { DEFAULT_RULES } from './meta-rules';

type TemplateRef = { wabaId: string; name: string; language?: string };
export { sign as signWebhookBody } from './webhooks';

export interface WhatsAppSimOptions {
  port?: number;
  host?: string;
  appSecret?: string;
  webhookUrl?: string | null;
  numbers?: NumberInput[];
  templates?: TemplateInput[];
  approvalDelayMs?: number;
  rejectTemplatesMatching?: RegExp | null;
  latencyMs?: number;
  /** Jitter before a send is counted (e.g. { baseMs: 5, tailMeanMs: 15, capMs: 80 }). */
  latencyJitter?: LatencyJitter | null;
  deliveryRate?: number;
  readRate?: number;
  failRate?: number;
  statusDelayMs?: number;
  webhookBatchMax?: number;
  pairLimit?: number;
  managementHourlyLimit?: number;
  /** Meta's 2025–26 rules; see MetaRulesConfig (every default keeps the older behaviour). */
  rules?: Partial<MetaRulesConfig>;
  /** Recipients reply and tap by themselves (off by default). */
  autoReplies?: AutoReplies | null;
}

export type WhatsAppConfigurable = Partial<Pick<WhatsAppConfig,
  'webhookUrl' | 'appSecret' | 'latencyMs' | 'latencyJitter' | 'deliveryRate' | 'readRate' | 'templateReadRates' | 'templateBlockRates' | 'failRate' | 'failCode' | 'statusDelayMs'
  | 'approvalDelayMs' | 'duplicateWebhooks' | 'reorderWebhooks' | 'webhookRetry' | 'webhookBatchMax' | 'pairLimit'
  | 'managementHourlyLimit' | 'rejectTemplatesMatching' | 'autoReplies'>> & { rules?: Partial<MetaRulesConfig> };

export interface WhatsAppSim {
  url: string;
  /** `${url}/v23.0`: the value for WHATSAPP_GRAPH_URL. */
  graphUrl: string;
  /** The simulated Meta app's id: the value for WHATSAPP_APP_ID. */
  appId: string;
  addNumber(n: NumberInput): void;
  addTemplate(t: TemplateInput): void;
  configure(p: WhatsAppConfigurable): void;
  setThroughput(phoneNumberId: string, perSecond: number): void;
  setRecipientBehaviour(phoneE164Digits: string, b: RecipientBehaviour): void;
  injectFault(f: WhatsAppFault): void;
  /** Posts an inbound text or quick-reply tap (optionally a reply with `context`); resolves with its wamid. */
  sendInbound(p: InboundInput): Promise<string>;
  /** A recipient replies to, or taps a quick-reply button of, a message the simulator sent. */
  replyTo(p: ReplyInput): Promise<{ ok: true; wamid: string; context: string }>;
  messages(): RecordedMessage[];
  countsByRecipient(): Map<string, number>;
  duplicates(): Array<{ to: string; bizOpaque: string | null; count: number }>;
  timestamps(phoneNumberId: string): number[];
  maxInAnyWindow(phoneNumberId: string, windowMs?: number): number;
  templatesOf(wabaId: string): any[];
  /** Media uploaded to /{phone-number-id}/media: id, number, type and size. */
  mediaUploads(): Array<{ id: string; phoneNumberId: string; mime: string; size: number; filename: string | null }>;
  webhookStats(): { sent: number; failed: number; pending: number; posts: number };
  /** Portfolio limit (250, 2000, 10000, 100000, -1); posts business_capability_update and phone_number_quality_update. */
  setMessagingLimit(p: { businessId?: string; phoneNumberId?: string; limit: number }): void;
  /** Unique users reached in the moving 24 h, against the portfolio limit. */
  portfolioUsage(businessId: string): { businessId: string; limit: number; tier: string; used: number };
  /** The user (phone or BSUID) stops or resumes marketing: posts user_preferences; resolves once delivered. */
  setMarketingPreference(p: { phoneNumberId: string; user: string; value: 'stop' | 'resume' }): Promise<void>;
  /** Makes a phone a username user (its webhooks carry only the BSUID), or not. */
  setUsernameUser(phone: string, on?: boolean): void;
  /** The BSUID of a phone for the portfolio of this number. */
  bsuidOf(phoneNumberId: string, phone: string): string;
  /** message_template_quality_update; RED walks the pause ladder (rules.pauseOnRed). */
  setTemplateQuality(t: TemplateRef & { score: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN' }): void;
  /** PAUSE (FIRST_PAUSE, SECOND_PAUSE, then DISABLED), UNPAUSE, REINSTATE, FLAG, DISABLE. */
  templateEvent(t: TemplateRef & { event: TemplateEvent }): void;
  /** template_category_update, impending (a warning) or completed (the category changes). */
  templateCategoryUpdate(t: TemplateRef & { newCategory: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION'; impending?: boolean; inMs?: number }): void;
  /** 131057 for durationMs (default rules.throughputUpgradeMs), then 1,000 msg/s and THROUGHPUT_UPGRADE. */
  upgradeThroughput(phoneNumberId: string, durationMs?: number): Promise<void>;
  /** account_update: DISABLED_UPDATE (ban_info), ACCOUNT_RESTRICTION (restriction_info), ACCOUNT_VIOLATION… */
  accountUpdate(p: AccountUpdateInput & { wabaId: string; phoneNumber?: string }): Promise<void>;
  /** Moves the clock of the 24 h rules (portfolio window, per-user marketing day) forward. */
  advanceClock(ms: number): void;
  /** Marketing Messages API: the WABA's onboarding (ONBOARDED posts MM_LITE_TERMS_SIGNED unless announce is false). */
  setMarketingOnboarding(p: { wabaId: string; status: string; announce?: boolean }): Promise<void>;
  /** A template still syncing with the Marketing Messages API (134101) for `ms`. */
  setTemplateSyncing(t: TemplateRef & { ms?: number }): void;
  /** A link click on a message sent by the Marketing Messages API: the `user_actions` webhook. */
  clickLink(p: { wamid: string; component?: 'cta' | 'body' }): Promise<string>;
  /** A WABA Meta gives no template analytics for (EU, UK, JP). */
  setAnalyticsUnavailable(wabaId: string): void;
  /** The route each accepted message of a template took (`messages` | `marketing_messages`), by wamid. */
  routes(): Map<string, string>;
  flushWebhooks(): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

export async function startWhatsAppSim(opts: WhatsAppSimOptions = {}): Promise<WhatsAppSim> {
  const state = new WhatsAppState({
    webhookUrl: null,
    appSecret: opts.appSecret ?? 'sim-app-secret',
    latencyMs: opts.latencyMs ?? 0,
    latencyJitter: null,
    deliveryRate: opts.deliveryRate ?? 1,
    readRate: opts.readRate ?? 0.8,
    failRate: opts.failRate ?? 0,
    failCode: 131049,
    statusDelayMs: opts.statusDelayMs ?? 50,
    approvalDelayMs: opts.approvalDelayMs ?? 500,
    rejectTemplatesMatching: opts.rejectTemplatesMatching ?? null,
    webhookBatchMax: opts.webhookBatchMax ?? 100,
    duplicateWebhooks: false,
    reorderWebhooks: false,
    webhookRetry: true,
    pairLimit: opts.pairLimit ?? 5,
    managementHourlyLimit: opts.managementHourlyLimit ?? 5000,
  });
  // Through configure() so the URL, the rules and the jitter are validated the same way as later changes.
  state.configure({ webhookUrl: opts.webhookUrl ?? null, rules: opts.rules, latencyJitter: opts.latencyJitter ?? null, autoReplies: opts.autoReplies ?? null });
  for (const n of opts.numbers ?? []) state.addNumber(n);
  for (const t of opts.templates ?? []) state.addTemplate(t);

  const hangs = new Hangs();
  const app = createApp();
  app.setNotFoundHandler((req, reply) => {
    const e = graphError(100, `Unknown path components: ${req.url.split('?')[0]}`);
    return reply.code(e.status).send(e.body);
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (req.url.startsWith('/__control')) return reply.code(err.statusCode ?? 400).send({ error: err.message });
    // Unparseable JSON and the like: Graph answers code 100.
    const status = err.statusCode && err.statusCode < 500 ? 400 : 500;
    const e = status === 400 ? graphError(100, err.message) : graphError(1, err.message, {}, 500);
    return reply.code(e.status).send(e.body);
  });
  registerGraphRoutes(app, state, hangs);
  registerWhatsAppControl(app, state);
  app.addHook('onClose', async () => hangs.releaseAll());

  const url = await listen(app, opts.port ?? 0, opts.host ?? '127.0.0.1');
  return {
    url,
    graphUrl: `${url}/v23.0`,
    appId: SIM_APP_ID,
    addNumber: (n) => void state.addNumber(n),
    addTemplate: (t) => void state.addTemplate(t),
    configure: (p) => state.configure(p),
    setThroughput: (id, perSecond) => state.setThroughput(id, perSecond),
    setRecipientBehaviour: (phone, b) => state.setRecipientBehaviour(phone, b),
    injectFault: (f) => state.injectFault(f),
    sendInbound: (p) => state.sendInbound(p),
    replyTo: (p) => state.replyTo(p),
    messages: () => state.log.messages(),
    setMarketingOnboarding: (p) => state.setMarketingOnboarding(p),
    setTemplateSyncing: (t) => {
      const found = state.templates.find(t.wabaId, t.name, t.language ?? 'es');
      if (!found) throw new Error('unknown template');
      state.mm.setSyncing(found.id, t.ms ?? 600_000);
    },
    clickLink: (p) => state.clickLink(p),
    setAnalyticsUnavailable: (wabaId) => void state.mm.analyticsUnavailable.add(wabaId),
    routes: () => new Map([...state.mm.sends].map(([wamid, s]) => [wamid, s.route])),
    countsByRecipient: () => state.log.countsByRecipient(),
    duplicates: () => state.log.duplicates(),
    timestamps: (id) => state.log.timestamps(id),
    maxInAnyWindow: (id, windowMs) => state.log.maxInAnyWindow(id, windowMs),
    templatesOf: (wabaId) => state.templates.list(wabaId).map((t) => ({ ...t })),
    mediaUploads: () => state.media.list(),
    webhookStats: () => state.webhooks.stats(),
    setMessagingLimit: (p) => state.setMessagingLimit(p),
    portfolioUsage: (businessId) => state.rules.portfolioUsage(businessId),
    setMarketingPreference: (p) => state.setMarketingPreference(p),
    setUsernameUser: (phone, on = true) => state.rules.setUsernameUser(phone, on),
    bsuidOf: (phoneNumberId, phone) => state.identifyUser(phoneNumberId, phone).bsuid,
    setTemplateQuality: (t) => state.rules.setTemplateQuality(state.templateFor(t), t.score),
    templateEvent: (t) => state.rules.templateEvent(state.templateFor(t), t.event),
    templateCategoryUpdate: (t) => state.rules.templateCategoryUpdate(state.templateFor(t), t.newCategory, t.impending === true, t.inMs),
    upgradeThroughput: (id, durationMs) => state.upgradeThroughput(id, durationMs),
    accountUpdate: (p) => state.rules.accountUpdate(p.wabaId, p, p.phoneNumber),
    advanceClock: (ms) => state.rules.advanceClock(ms),
    flushWebhooks: () => state.webhooks.flush(),
    reset: () => state.reset(),
    close: async () => {
      hangs.releaseAll();
      await app.close();
      await state.close();
    },
  };
}
