// /__control endpoints: drive a WhatsApp simulator running in another process.
import type { FastifyInstance } from 'fastify';
import type { InboundInput, ReplyInput, WhatsAppState } from './state';
import type { AccountUpdateInput, TemplateEvent } from './meta-rules';
import type { NumberInput, RecipientBehaviour, TemplateInput, WhatsAppFault } from './types';

type Query = Record<string, string | undefined>;

function positiveInt(v: string | undefined): number | undefined {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

export function registerWhatsAppControl(app: FastifyInstance, state: WhatsAppState): void {
  // Control calls answer {ok:true} or 400 {error}.
  const act = (fn: (body: any) => unknown) => async (req: { body: unknown }) => {
    const result = await fn(req.body ?? {});
    return result === undefined ? { ok: true } : result;
  };

  app.post('/__control/numbers', act((b: NumberInput) => void state.addNumber(b)));
  app.post('/__control/templates', act((b: TemplateInput) => {
    const t = state.addTemplate(b);
    return { ok: true, id: t.id };
  }));
  app.get<{ Querystring: Query }>('/__control/templates', async (req) => state.templates.list(req.query.wabaId ?? ''));
  app.post('/__control/configure', act((b) => state.configure(b)));
  app.post('/__control/throughput', act((b: { phoneNumberId: string; perSecond: number }) => state.setThroughput(b.phoneNumberId, b.perSecond)));
  app.post('/__control/recipient', act((b: { phone: string; behaviour: RecipientBehaviour }) => state.setRecipientBehaviour(b.phone, b.behaviour)));
  app.post('/__control/fault', act((b: WhatsAppFault) => state.injectFault(b)));
  app.post('/__control/inbound', act(async (b: InboundInput) => ({ ok: true, wamid: await state.sendInbound(b) })));
  // A reply or a quick-reply tap to a message the simulator sent (by wamid, or the last one to a phone).
  app.post('/__control/reply', act((b: ReplyInput) => state.replyTo(b)));
  app.post('/__control/flush', act(() => state.webhooks.flush()));

  // Meta's 2025–26 rules (see meta-rules.ts).
  app.post('/__control/messaging-limit', act((b: { businessId?: string; phoneNumberId?: string; limit: number }) => state.setMessagingLimit(b)));
  app.get<{ Querystring: Query }>('/__control/portfolio', async (req) => state.rules.portfolioUsage(req.query.businessId ?? ''));
  app.post('/__control/marketing-preference', act((b: { phoneNumberId: string; user: string; value: 'stop' | 'resume' }) => state.setMarketingPreference(b)));
  app.post('/__control/username-user', act((b: { phone: string; username?: boolean }) => state.rules.setUsernameUser(b.phone, b.username !== false)));
  app.get<{ Querystring: Query }>('/__control/bsuid', async (req) => ({ bsuid: state.identifyUser(req.query.phoneNumberId ?? '', req.query.phone ?? '').bsuid }));
  app.post('/__control/template-quality', act((b: { wabaId: string; name: string; language?: string; score: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN' }) =>
    state.rules.setTemplateQuality(state.templateFor(b), b.score)));
  app.post('/__control/template-event', act((b: { wabaId: string; name: string; language?: string; event: TemplateEvent }) =>
    state.rules.templateEvent(state.templateFor(b), b.event)));
  app.post('/__control/template-category', act((b: { wabaId: string; name: string; language?: string; newCategory: any; impending?: boolean; inMs?: number }) =>
    state.rules.templateCategoryUpdate(state.templateFor(b), b.newCategory, b.impending === true, b.inMs)));
  // Answers at once; the upgrade finishes (and its webhook is posted) after durationMs.
  app.post('/__control/throughput-upgrade', act((b: { phoneNumberId: string; durationMs?: number }) => void state.upgradeThroughput(b.phoneNumberId, b.durationMs)));
  app.post('/__control/account-update', act((b: AccountUpdateInput & { wabaId: string; phoneNumber?: string }) => state.rules.accountUpdate(b.wabaId, b, b.phoneNumber)));
  app.post('/__control/advance-clock', act((b: { ms: number }) => state.rules.advanceClock(Number(b.ms))));
  app.post('/__control/reset', act(() => state.reset()));
  // Marketing Messages API: onboarding (ONBOARDED posts MM_LITE_TERMS_SIGNED unless announce is false),
  // a template still syncing, a link click, a WABA without template analytics (EU, UK, JP).
  app.post('/__control/mm-onboarding', act((b: { wabaId: string; status: string; announce?: boolean }) => state.setMarketingOnboarding(b)));
  app.post('/__control/mm-syncing', act((b: { wabaId: string; name: string; language?: string; ms?: number }) => {
    const t = state.templates.find(b.wabaId, b.name, b.language ?? 'es');
    if (!t) throw new Error('unknown template');
    state.mm.setSyncing(t.id, b.ms ?? 600_000);
  }));
  app.post('/__control/mm-click', act(async (b: { wamid: string; component?: 'cta' | 'body' }) => ({ ok: true, click_id: await state.clickLink(b) })));
  app.post('/__control/analytics-unavailable', act((b: { wabaId: string }) => void state.mm.analyticsUnavailable.add(b.wabaId)));

  app.get<{ Querystring: Query }>('/__control/messages', async (req) => ({
    total: state.log.size,
    messages: state.log.messages({ phoneNumberId: req.query.phoneNumberId, to: req.query.to, limit: positiveInt(req.query.limit) ?? 100 }),
  }));
  app.get('/__control/counts', async () => Object.fromEntries(state.log.countsByRecipient()));
  app.get('/__control/duplicates', async () => state.log.duplicates());
  app.get<{ Querystring: Query }>('/__control/timestamps', async (req) => state.log.timestamps(req.query.phoneNumberId ?? ''));
  app.get<{ Querystring: Query }>('/__control/max-window', async (req) => ({
    max: state.log.maxInAnyWindow(req.query.phoneNumberId ?? '', positiveInt(req.query.windowMs) ?? 1000),
  }));
  app.get('/__control/webhook-stats', async () => state.webhooks.stats());
  app.get('/__control/stats', async () => ({
    messages: state.log.size,
    perNumber: state.log.perNumber(),
    numbers: [...state.numbers.values()].map((n) => ({
      phoneNumberId: n.phoneNumberId,
      wabaId: n.wabaId,
      throughput: n.throughput,
      throughputErrors: n.throughputErrors,
      throughputErrorLog: n.throughputErrorLog,
    })),
    webhooks: state.webhooks.stats(),
  }));
}
