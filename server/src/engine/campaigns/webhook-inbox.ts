import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { applyDeliveryFacts, type DeliveryFact } from '../../services/campaigns/recipient-transitions';
import { jsonParam, preparedRows, retryOnConflict, rowsOf } from '../../db/sql';
import { applyTemplateStatusUpdate, type TemplateStatusUpdate } from '../../services/templates/status-update';
import {
  applyCategoryUpdate,
  applyQualityUpdate,
  followTemplateStatus,
  type CampaignEffects,
  type CategoryUpdate,
  type QualityUpdate,
} from '../../services/templates/template-risk';
import { claimsToBeOurs, createCallbackData, type CallbackData, type CallbackTarget } from './callback-data';
import type { CampaignEngineOptions } from './options';
import { isOptIn, isOptOut, recordOptIn, recordOptOut } from '../../services/blacklist/opt-out';
import { applyChanges, learnInboundBsuids } from './webhook-fields';
import { applyStatusExtras } from './status-extras';
import { optOutButtonTenant } from './button-opt-out';
import { createButtonPayload, type ButtonPayload } from './button-payload';
import { emptyContents, readWebhook, type LinkClick, type StatusUpdate, type TemplateUpdate, type WebhookContents } from './webhook-payload';
import { applyLinkClicks } from '../../services/campaigns/link-clicks';
import { recordMetaEvents } from './meta-events';
import { Wakeable } from './wakeable';
import { activeSpanContext, inSpan, recipientContext, startSpan, tracingOn, type Span } from '../../lib/tracing';
import { recordInbound } from '../../services/campaigns/inbound-replies';
import { toBsuid } from '../../lib/bsuid';
import { announceReplies, announceStatuses, type ReplyEvent } from '../../services/webhook-endpoints/outbox';

const MAX_EVENT_ATTEMPTS = 8;
/** Least time between two batches when webhooks keep arriving. */
const MIN_GAP_MS = 150;

/**
 * Applies stored webhook POSTs in batches. Workers share the inbox through SKIP LOCKED; an
 * event is deleted in the same transaction that applied it, and applying is idempotent, so
 * a crash at any point only means the batch is applied again.
 */
export class WebhookInbox {
  private readonly wakeable = new Wakeable();
  private stopping = false;
  private loop: Promise<void> | null = null;
  private readonly statusCheck: StatusCheck;
  private readonly buttonPayload: ButtonPayload;
  private readonly changedCampaigns = new Set<number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: CampaignEngineOptions,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {
    this.statusCheck = {
      callbackData: createCallbackData(ctx.config.APP_SECRET),
      warn: (msg) => log(`warning: ${msg}`),
      // Outbound `message.status`: nothing is written for organisations without a subscribed endpoint.
      announce: (db, matched) =>
        announceStatuses(
          db,
          ctx.webhookSubscriptions,
          matched.map((m) => ({
            orgId: m.row.userId,
            campaignId: m.row.campaignId,
            recipientId: m.recipientId,
            status: m.status.status,
            at: m.status.at,
            errorCode: m.status.error?.code ?? null,
          })),
        ),
    };
    this.buttonPayload = createButtonPayload(ctx.config.APP_SECRET);
  }

  start() {
    this.loop = this.run();
  }

  wake() {
    this.wakeable.wake();
  }

  async stop() {
    this.stopping = true;
    this.wakeable.wake();
    await this.loop;
  }

  private async run() {
    while (!this.stopping) {
      const startedAt = performance.now();
      let processed = 0;
      try {
        processed = await this.drainOnce();
      } catch (err) {
        this.log('webhook batch failed', err);
      }
      if (processed >= this.opts.inboxBatch) continue;
      await this.wakeable.sleep(this.opts.inboxPollMs);
      // Woken by each stored POST: gather a few before the next batch (one statement for many).
      const gap = MIN_GAP_MS - (performance.now() - startedAt);
      if (gap > 0 && !this.stopping) await new Promise((r) => setTimeout(r, gap));
    }
  }

  /** Applies one batch; returns how many stored POSTs it consumed. */
  async drainOnce(): Promise<number> {
    try {
      return await retryOnConflict(() => this.ctx.db.transaction((tx) => this.applyBatch(tx, this.opts.inboxBatch)));
    } catch (err) {
      // One bad event must not block the others: go one by one and set the culprit aside.
      this.log('webhook batch failed; applying events one by one', err);
      return this.applyOneByOne();
    } finally {
      this.nudgeChanged();
    }
  }

  /** Campaigns paused or resumed by an applied event: their senders hear it now, not at their next poll. */
  private nudgeChanged() {
    for (const id of this.changedCampaigns) this.ctx.signals.campaignChanged(id);
    this.changedCampaigns.clear();
  }

  private async applyBatch(tx: Db, limit: number, onlyId?: number): Promise<number> {
    const events = await rowsOf<{ id: number | string; payload: unknown; received_at: Date | string }>(
      tx,
      sql`select id, payload, received_at from webhook_events
          where process_after <= now() ${onlyId === undefined ? sql`` : sql`and id = ${onlyId}`}
          order by id limit ${limit} for update skip locked`,
    );
    if (!events.length) return 0;
    // With tracing on, the batch is a span: its queries are its children, its statuses link to it.
    return inSpan('webhook_inbox.batch', { attributes: () => ({ 'webhook.events': events.length }) }, () => this.applyEvents(tx, events));
  }

  private async applyEvents(tx: Db, events: Array<{ id: number | string; payload: unknown; received_at: Date | string }>): Promise<number> {
    const contents: WebhookContents = emptyContents();
    for (const e of events) readWebhook(typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload, contents);
    await applyStatuses(tx, contents.statuses, this.statusCheck);
    if (contents.clicks?.length) await applyClicks(tx, contents.clicks);
    for (const m of contents.inbound) {
      if (isOptOut(m.text)) await recordOptOut(tx, m);
      else if (isOptIn(m.text)) await recordOptIn(tx, m);
      else {
        const tenant = await optOutButtonTenant(tx, this.buttonPayload, m);
        if (tenant !== null) await recordOptOut(tx, m, tenant);
      }
    }
    for (const t of contents.templateUpdates) {
      const effects = await applyTemplateUpdate(tx, t);
      for (const id of [...effects.paused, ...effects.resumed]) this.changedCampaigns.add(id);
    }
    await learnInboundBsuids(tx, contents.inbound);
    const replies: ReplyEvent[] = [];
    await recordInbound(tx, contents.inbound, undefined, replies);
    await announceReplies(tx, this.ctx.webhookSubscriptions, replies);
    await applyChanges(tx, contents.changes);
    const ids = events.map((e) => Number(e.id));
    await tx.execute(
      sql`delete from webhook_events where id = any(array(select (jsonb_array_elements_text(${jsonParam(ids)}))::bigint))`,
    );
    this.ctx.metrics.webhooksApplied(events.map((e) => e.received_at));
    return events.length;
  }

  private async applyOneByOne(): Promise<number> {
    const due = await rowsOf<{ id: number | string }>(
      this.ctx.db,
      sql`select id from webhook_events where process_after <= now() order by id limit ${this.opts.inboxBatch}`,
    );
    let done = 0;
    for (const { id } of due) {
      try {
        done += await retryOnConflict(() => this.ctx.db.transaction((tx) => this.applyBatch(tx, 1, Number(id))));
      } catch (err) {
        this.log(`webhook event ${id} failed`, err);
        await this.ctx.db.execute(sql`update webhook_events set attempts = attempts + 1,
            last_error = ${String((err as Error)?.message ?? err).slice(0, 500)},
            process_after = case when attempts + 1 >= ${MAX_EVENT_ATTEMPTS} then 'infinity'::timestamptz
                                 else now() + power(2, attempts + 1) * interval '1 second' end
          where id = ${Number(id)}`);
      }
    }
    return done;
  }
}

/** One template change of a WABA's webhook: the template first, then its campaigns. */
async function applyTemplateUpdate(tx: Db, t: TemplateUpdate): Promise<CampaignEffects> {
  const none: CampaignEffects = { paused: [], resumed: [] };
  if (t.field === 'template_category_update') {
    await applyCategoryUpdate(tx, t.wabaId, t.value as CategoryUpdate);
    return none;
  }
  if (t.field === 'message_template_quality_update') {
    await applyQualityUpdate(tx, t.wabaId, t.value as QualityUpdate);
    return none;
  }
  const applied = await applyTemplateStatusUpdate(tx, t.wabaId, t.value as unknown as TemplateStatusUpdate, t.at);
  if (!applied) return none;
  return followTemplateStatus(tx, applied.templateIds, applied.status, applied.detail);
}

export interface StatusCheck {
  callbackData: CallbackData;
  /** Statuses refused as forged or foreign are reported here (counts only, no personal data). */
  warn: (msg: string) => void;
  /** Hears every status matched to a recipient, in the batch's transaction (outbound webhooks). */
  announce?: (db: Db, matched: Array<{ recipientId: number; status: StatusUpdate; row: MatchedRow }>) => Promise<void>;
}

/**
 * Status webhooks → delivery facts. A status is matched by our signed callback data or else
 * by Meta's message id, and in both cases only when it comes from the number the campaign
 * sends with (`metadata.phone_number_id`): every tenant's number posts to the same webhook,
 * so a status from another number, or naming a recipient with unsigned callback data,
 * changes nothing. A status of an earlier attempt (another wamid than the row's current
 * one) never overrides the newer attempt's outcome. Several statuses of one recipient fold
 * into one fact.
 */
export async function applyStatuses(db: Db, statuses: StatusUpdate[], check: StatusCheck): Promise<number> {
  if (!statuses.length) return 0;
  const byOpaque = new Map<StatusUpdate, CallbackTarget>();
  let unsigned = 0;
  for (const s of statuses) {
    const target = check.callbackData.verify(s.bizOpaque);
    if (target) byOpaque.set(s, target);
    else if (claimsToBeOurs(s.bizOpaque)) unsigned++;
  }
  const ids = [...new Set([...byOpaque.values()].map((v) => v.recipientId))];
  const wamids = [...new Set(statuses.filter((s) => !byOpaque.has(s)).map((s) => s.wamid))];
  const found = await preparedRows<RecipientFound>(
    db,
    sql`select r.id, r.campaign_id, r.wamid, wa.phone_number_id, r.user_id, r.phone_key, r.bsuid
        from campaign_recipients r
        join campaigns c on c.id = r.campaign_id
        left join whatsapp_accounts wa on wa.id = coalesce(r.whatsapp_account_id, c.whatsapp_account_id)
        where r.id = any(array(select (jsonb_array_elements_text(${jsonParam(ids)}))::bigint))
        union all
        select r.id, r.campaign_id, r.wamid, wa.phone_number_id, r.user_id, r.phone_key, r.bsuid
        from campaign_recipients r
        join campaigns c on c.id = r.campaign_id
        left join whatsapp_accounts wa on wa.id = coalesce(r.whatsapp_account_id, c.whatsapp_account_id)
        where r.wamid = any(array(select jsonb_array_elements_text(${jsonParam(wamids)})))`,
  );
  const rowOf = new Map<number, MatchedRow>();
  const idOfWamid = new Map<string, number>();
  for (const r of found) {
    rowOf.set(Number(r.id), {
      campaignId: Number(r.campaign_id),
      wamid: r.wamid,
      phoneNumberId: r.phone_number_id,
      userId: Number(r.user_id),
      phoneKey: r.phone_key,
      bsuid: r.bsuid,
    });
    if (r.wamid) idOfWamid.set(r.wamid, Number(r.id));
  }

  let foreign = 0;
  const facts = new Map<number, DeliveryFact>();
  const matched: Array<{ recipientId: number; status: StatusUpdate; row: MatchedRow }> = [];
  const unmatched: StatusUpdate[] = [];
  for (const s of statuses) {
    const opaque = byOpaque.get(s);
    let recipientId: number | undefined;
    if (opaque) {
      const row = rowOf.get(opaque.recipientId);
      if (!row || row.campaignId !== opaque.campaignId) {
        unmatched.push(s);
        continue;
      }
      if (row.phoneNumberId !== s.phoneNumberId) {
        foreign++;
        continue;
      }
      // An earlier attempt's late status: the row already follows a newer message.
      if (row.wamid && row.wamid !== s.wamid) continue;
      recipientId = opaque.recipientId;
    } else {
      recipientId = idOfWamid.get(s.wamid);
      if (recipientId === undefined) {
        unmatched.push(s);
        continue;
      }
      if (rowOf.get(recipientId)?.phoneNumberId !== s.phoneNumberId) {
        foreign++;
        continue;
      }
    }
    const fact = facts.get(recipientId) ?? { recipientId, wamid: s.wamid };
    facts.set(recipientId, fold(fact, s));
    matched.push({ recipientId, status: s, row: rowOf.get(recipientId)! });
  }
  if (unsigned) check.warn(`${unsigned} delivery status(es) ignored: callback data without a valid signature`);
  if (foreign) check.warn(`${foreign} delivery status(es) ignored: sent from another number than the campaign's`);
  const spans = tracingOn() ? statusSpans(matched) : null;
  try {
    const applied = await applyDeliveryFacts(db, [...facts.values()]);
    await applyStatusExtras(db, matched, unmatched);
    await check.announce?.(db, matched);
    return applied;
  } finally {
    if (spans) for (const span of spans) span.end();
  }
}

/**
 * One span per status matched to a recipient, in the recipient's trace (lib/tracing.ts,
 * `recipientContext`): the same trace as the sends it reports on, with the same `campaign.id`
 * and `recipient.id`; it links to the inbox batch that applied it.
 */
function statusSpans(matched: Array<{ recipientId: number; status: StatusUpdate; row: MatchedRow }>): Span[] {
  const batch = activeSpanContext();
  const spans: Span[] = [];
  for (const m of matched) {
    const span = startSpan('campaign.status', {
      parent: recipientContext(m.row.campaignId, m.recipientId),
      links: batch ? [{ context: batch }] : undefined,
      attributes: {
        'campaign.id': m.row.campaignId,
        'recipient.id': m.recipientId,
        'messaging.system': 'whatsapp',
        'messaging.message.id': m.status.wamid,
        'whatsapp.status': m.status.status,
        ...(m.status.error?.code != null ? { 'error.type': String(m.status.error.code) } : {}),
      },
    });
    if (span) spans.push(span);
  }
  return spans;
}

interface RecipientFound {
  id: number | string;
  campaign_id: number;
  wamid: string | null;
  phone_number_id: string | null;
  user_id: number | string;
  phone_key: string | null;
  bsuid: string | null;
}

/** A recipient a status names, as it was read before the batch is applied. */
export interface MatchedRow {
  campaignId: number;
  wamid: string | null;
  phoneNumberId: string | null;
  userId: number;
  phoneKey: string | null;
  bsuid: string | null;
}

const earliest = (a: string | null | undefined, b: string) => (a && a < b ? a : b);

/**
 * Folds one more status of a recipient into its fact: the earliest time of each state, the
 * pricing of the latest status that carries one (field by field), and the BSUID it names.
 */
function fold(prior: DeliveryFact, s: StatusUpdate): DeliveryFact {
  const bsuid = toBsuid(s.recipientUserId);
  const fact: DeliveryFact = {
    ...prior,
    pricing: s.pricing
      ? {
          category: s.pricing.category ?? prior.pricing?.category ?? null,
          type: s.pricing.type ?? prior.pricing?.type ?? null,
          model: s.pricing.model ?? prior.pricing?.model ?? null,
        }
      : prior.pricing,
    bsuid: bsuid ?? prior.bsuid,
  };
  switch (s.status) {
    case 'sent':
      return { ...fact, sentAt: earliest(fact.sentAt, s.at) };
    case 'delivered':
      return { ...fact, deliveredAt: earliest(fact.deliveredAt, s.at) };
    case 'read':
    case 'played':
      return { ...fact, readAt: earliest(fact.readAt, s.at) };
    case 'failed':
      if (fact.failed && fact.failed.at <= s.at) return fact;
      return { ...fact, failed: { at: s.at, code: s.error?.code ?? null, message: s.error?.message ?? null } };
    default:
      return fact;
  }
}

/** Marketing-message link clicks: attributed where they name a person, and kept in the number's Meta events. */
async function applyClicks(tx: Db, clicks: LinkClick[]): Promise<void> {
  await applyLinkClicks(tx, clicks);
  await recordMetaEvents(
    tx,
    clicks.slice(0, 100).map((c) => ({
      field: 'messages.user_actions',
      wabaId: c.wabaId,
      phoneNumberId: c.phoneNumberId || null,
      value: { action_type: 'marketing_messages_link_click', click_id: c.clickId, click_component: c.component },
      at: new Date(c.at),
    })),
  );
}
