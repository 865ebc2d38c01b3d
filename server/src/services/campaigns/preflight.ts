import { variantLabel } from '@masivo/contract/split-test';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { assertVariantsOnNumbers, numbersOfCampaigns, numbersRate, resolveCampaignNumbers } from './campaign-numbers';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import {
  EXCLUSION_LABELS,
  EXCLUSION_REASONS,
  preflightRequestSchema,
  type ExclusionReason,
  type Preflight,
  type PreflightRequest,
} from '@masivo/contract/preflight';
import type { Db } from '../../db/client';
import { kommoAccounts, templates, whatsappAccounts } from '../../db/schema/index';
import { rowsOf } from '../../db/sql';
import { AppError, notFound } from '../../lib/errors';
import { parseWith } from '../../lib/parse-with';
import { estimateCost } from '../pricing/estimate-cost';
import { assertTemplateUsable } from '../variables/template-readiness';
import { portfolioKey, portfolioUsage } from '../whatsapp-accounts/messaging-limit';
import { countAudience, countryOfRecipient, frequencyCapOf, REASON_MESSAGE, type AudienceRules } from './audience-classifier';
import { assertOwnKommoAccount, assertOwnWhatsAppAccount } from './campaign-references';
import { loadCampaignRow } from './campaign-queries';
import { recipientZone } from './recipient-zone';
import { estimateFinish, type SendingHours } from './sending-hours';

const DAY_SECONDS = 86_400;

export interface PreflightInput {
  /** Null only with `explicitOf`: a campaign with explicit recipients has no Kommo account. */
  kommoAccountId: number | null;
  whatsappAccountId: number;
  templateId: number;
  filters: ContactFilter;
  /** When sending starts (the schedule), else now. */
  startAt: Date | null;
  /** The campaign's sending hours (null or absent: any time): the ETA waits for each zone's window. */
  hours?: SendingHours | null;
  /** A follow-up's campaign id: its frozen contact list is the matched set (0024), not `filters`. */
  contactListOf?: number | null;
  /** A campaign with explicit recipients (0039): its staged recipients are the matched set. */
  explicitOf?: number | null;
  /** A split test's other variants ("Prueba A/B"): each template is checked as the campaign's own. */
  variantTemplateIds?: number[];
  /** Several numbers: every number it sends from; each is checked, their rates add up. */
  numbers?: number[];
}

/**
 * The classifier's rules for a pre-flight (after the access checks): the template decides
 * marketing (US numbers, frequency cap) and whether it is unfit. Shared with the lists of the
 * excluded contacts (preflight-excluded.ts), so a list holds exactly the contacts a count counts.
 */
export async function preflightRules(
  db: Db,
  userId: number,
  input: Pick<PreflightInput, 'kommoAccountId' | 'whatsappAccountId' | 'templateId' | 'filters' | 'contactListOf' | 'explicitOf' | 'variantTemplateIds' | 'numbers'>,
): Promise<{ rules: AudienceRules; templateProblem: string | null; category: string; cap: { maxMessages: number; days: number } | null }> {
  const explicit = input.explicitOf != null;
  if (input.kommoAccountId != null) await assertOwnKommoAccount(db, userId, input.kommoAccountId);
  else if (!explicit) throw new AppError(409, 'La campaña no tiene cuenta de WhatsApp, cuenta Kommo o plantilla');
  await assertOwnWhatsAppAccount(db, userId, input.whatsappAccountId);
  const [template] = await db
    .select({ id: templates.id, category: templates.category, name: templates.name, language: templates.language })
    .from(templates)
    .where(and(eq(templates.id, input.templateId), eq(templates.userId, userId)))
    .limit(1);
  if (!template) throw notFound('Plantilla no encontrada');
  let templateProblem: string | null = null;
  try {
    await assertTemplateUsable(db, userId, input.templateId, input.whatsappAccountId, { partialMappings: explicit });
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
    templateProblem = err.message;
  }
  if (templateProblem === null) templateProblem = await variantsProblem(db, userId, input, explicit);
  // Every sender is checked: same portfolio, the template approved on each (campaign-numbers.ts).
  if (templateProblem === null && (input.numbers?.length ?? 0) > 1) {
    try {
      const numbers = await resolveCampaignNumbers(db, userId, input.whatsappAccountId, input.numbers, template);
      // Each variant's template on every number too ("Variante B: El número «X» no tiene aprobada…").
      await assertVariantsOnNumbers(db, userId, numbers, await variantTemplatesOf(db, userId, input.variantTemplateIds));
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
      templateProblem = err.message;
    }
  }
  const category = (template.category ?? '').toUpperCase();
  const marketing = category === 'MARKETING';
  const cap = await frequencyCapOf(db, userId);
  const rules: AudienceRules = {
    userId,
    kommoAccountId: input.kommoAccountId,
    filters: input.filters,
    marketing,
    cap: marketing ? cap : null,
    templateUnfit: templateProblem !== null,
    contactListOf: input.contactListOf ?? null,
    explicitOf: input.explicitOf ?? null,
  };
  return { rules, templateProblem, category, cap };
}

/**
 * THE pre-flight: who will be attempted, who not and why, the portfolio's daily
 * budget and the waves it needs, the ETA and the cost. The counts come from the classifier the
 * freeze inserts from (audience-classifier.ts), so `attempted` is exactly the recipients a start
 * on the same data freezes as pending. Used by the new-campaign screen (POST), the detail
 * screen (GET), and campaign creation (`matched` becomes `total_recipients`).
 */
export async function runPreflight(db: Db, userId: number, input: PreflightInput): Promise<Preflight> {
  const { rules, templateProblem, category, cap } = await preflightRules(db, userId, input);
  const counts = await countAudience(db, rules);
  const byCountry = new Map<string | null, number>();
  // An explicit campaign has no Kommo account: its zones come from the phones alone.
  const [kommo] =
    input.kommoAccountId == null
      ? []
      : await db
          .select({ timeZone: kommoAccounts.timeZone })
          .from(kommoAccounts)
          .where(and(eq(kommoAccounts.id, input.kommoAccountId), eq(kommoAccounts.userId, userId)))
          .limit(1);
  // Before the freeze the zone is placed from the phone (its prefix group's sample) or the
  // account's zone; the freeze also reads the contact's zone field (recipient-zone.ts).
  const byZone = new Map<string, { timeZone: string; country: string | null; count: number }>();
  for (const p of counts.prefixes) {
    const country = countryOfRecipient(p.sample);
    byCountry.set(country, (byCountry.get(country) ?? 0) + p.count);
    const zone = recipientZone({ fieldValue: null, phone: p.sample, accountTimeZone: kommo?.timeZone ?? 'UTC' });
    const key = `${zone.timeZone}|${country ?? ''}`;
    const group = byZone.get(key) ?? { timeZone: zone.timeZone, country, count: 0 };
    group.count += p.count;
    byZone.set(key, group);
  }
  return finish(db, userId, {
    matched: counts.matched,
    attempted: counts.attempted,
    excluded: counts.excluded,
    byCountry,
    byZone: [...byZone.values()],
    hours: input.hours ?? null,
    templateProblem,
    category,
    cap,
    whatsappAccountId: input.whatsappAccountId,
    numbers: input.numbers,
    startAt: input.startAt,
  });
}

/** POST /api/campaigns/preflight: the create payload, before the campaign exists. */
export async function preflightForPayload(db: Db, userId: number, body: PreflightRequest): Promise<Preflight> {
  const data = parseWith(preflightRequestSchema, body);
  const at = data.scheduled_at ? new Date(data.scheduled_at) : null;
  return runPreflight(db, userId, {
    kommoAccountId: data.kommo_account_id,
    whatsappAccountId: data.whatsapp_account_id,
    templateId: data.template_id,
    filters: data.filters,
    startAt: at && at.getTime() > Date.now() ? at : null,
    hours: data.sending_hours ?? null,
    variantTemplateIds: data.variants?.map((v) => Number(v.template_id)),
    numbers: data.whatsapp_account_ids,
  });
}

/**
 * GET /api/campaigns/{id}/preflight. Before the first start it runs the pre-flight on the
 * campaign's saved filter; once the audience is frozen it reads the frozen rows (what is left
 * to attempt, and the skipped by reason). `startNow`: the ETA of a start now, even when the
 * campaign is scheduled later (what «Iniciar» does).
 */
export async function preflightForCampaign(db: Db, userId: number, id: number, opts: { startNow?: boolean } = {}): Promise<Preflight> {
  const row = await loadCampaignRow(db, userId, id);
  const explicit = row.audienceKind === 'explicit';
  if (!row.whatsappAccountId || !row.templateId || (!row.audienceFrozenAt && !row.kommoAccountId && !explicit)) {
    throw new AppError(409, 'La campaña no tiene cuenta de WhatsApp, cuenta Kommo o plantilla');
  }
  const startAt = !opts.startNow && row.scheduledAt && row.scheduledAt.getTime() > Date.now() ? row.scheduledAt : null;
  const numbers = (await numbersOfCampaigns(db, userId, [row.id])).get(row.id);
  if (!row.audienceFrozenAt) {
    return runPreflight(db, userId, {
      kommoAccountId: row.kommoAccountId,
      whatsappAccountId: row.whatsappAccountId,
      templateId: row.templateId,
      filters: row.filters,
      startAt,
      hours: row.sendingHours ?? null,
      contactListOf: row.audienceKind === 'contact_list' ? row.id : null,
      explicitOf: explicit ? row.id : null,
      variantTemplateIds: row.splitTest?.variants.map((v) => v.template_id),
      numbers,
    });
  }
  const rows = await rowsOf<{
    skipped: boolean;
    error_message: string | null;
    sample: string | null;
    time_zone: string | null;
    country: string | null;
    n: number | string;
  }>(
    db,
    sql`select status = 'skipped' as skipped, case when status = 'skipped' then error_message end as error_message,
          min(phone) as sample, case when status = 'skipped' then null else time_zone end as time_zone,
          case when status = 'skipped' then null else country end as country, count(*)::int as n
        from campaign_recipients where campaign_id = ${row.id} and user_id = ${userId}
          and status in ('pending', 'deferred', 'skipped')
        group by 1, 2, 4, 5, case when status = 'skipped' then null else left(phone_key, 4) end`,
  );
  const byZone = new Map<string, { timeZone: string; country: string | null; count: number }>();
  const reasonOf = new Map<string, ExclusionReason>(Object.entries(REASON_MESSAGE).map(([r, m]) => [m, r as ExclusionReason]));
  const excluded = Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, 0])) as Record<ExclusionReason, number>;
  const byCountry = new Map<string | null, number>();
  let attempted = 0;
  for (const r of rows) {
    const n = Number(r.n);
    if (r.skipped) {
      const reason = reasonOf.get(r.error_message ?? '');
      if (reason) excluded[reason] += n;
      continue;
    }
    attempted += n;
    const country = r.sample ? countryOfRecipient(r.sample) : null;
    byCountry.set(country, (byCountry.get(country) ?? 0) + n);
    // Zones are stored at the freeze when the campaign has hours; otherwise the zone is moot.
    const timeZone = r.time_zone ?? 'UTC';
    const key = `${timeZone}|${r.country ?? country ?? ''}`;
    const group = byZone.get(key) ?? { timeZone, country: r.country ?? country, count: 0 };
    group.count += n;
    byZone.set(key, group);
  }
  const [template] = await db.select({ category: templates.category }).from(templates).where(eq(templates.id, row.templateId)).limit(1);
  return finish(db, userId, {
    matched: row.totalRecipients,
    attempted,
    excluded,
    byCountry,
    byZone: [...byZone.values()],
    hours: row.sendingHours ?? null,
    templateProblem: null,
    category: (template?.category ?? '').toUpperCase(),
    cap: await frequencyCapOf(db, userId),
    whatsappAccountId: row.whatsappAccountId,
    numbers,
    startAt,
  });
}

async function finish(
  db: Db,
  userId: number,
  p: {
    matched: number;
    attempted: number;
    excluded: Record<ExclusionReason, number>;
    byCountry: Map<string | null, number>;
    byZone: Array<{ timeZone: string; country: string | null; count: number }>;
    hours: SendingHours | null;
    templateProblem: string | null;
    category: string;
    cap: { maxMessages: number; days: number } | null;
    whatsappAccountId: number;
    numbers?: number[];
    startAt: Date | null;
  },
): Promise<Preflight> {
  const [account] = await db
    .select({
      ratePerSecond: whatsappAccounts.ratePerSecond,
      dailyLimit: whatsappAccounts.dailyLimit,
      businessPortfolioId: whatsappAccounts.businessPortfolioId,
      businessAccountId: whatsappAccounts.businessAccountId,
    })
    .from(whatsappAccounts)
    .where(and(eq(whatsappAccounts.id, p.whatsappAccountId), eq(whatsappAccounts.userId, userId)))
    .limit(1);
  if (!account) throw notFound('Cuenta de WhatsApp no encontrada');
  const used = (await portfolioUsage(db, userId)).get(portfolioKey(account)) ?? 0;
  const limited = account.dailyLimit !== null && account.dailyLimit > 0;
  const left = limited ? Math.max(0, account.dailyLimit! - used) : null;
  // Today's places first, then one full limit per further 24 h.
  const waves = limited && p.attempted > left! ? 1 + Math.ceil((p.attempted - left!) / account.dailyLimit!) : 1;

  const countries = [...p.byCountry].map(([country, count]) => ({ country, count }));
  const now = p.startAt ?? new Date();
  // Several numbers: each paced at its own rate, so the campaign can reach their sum.
  const ratePerSecond = (p.numbers?.length ?? 0) > 1 ? await numbersRate(db, userId, p.numbers!) : account.ratePerSecond;
  const eta = estimateFinish({
    now,
    ratePerSecond,
    recipientsByZone: p.byZone,
    hours: p.hours,
  });
  const waveWait = (waves - 1) * DAY_SECONDS;
  const cost = await estimateCost(db, userId, { category: p.category || 'MARKETING', at: now, recipientsByCountry: countries });
  return {
    matched: p.matched,
    attempted: p.attempted,
    excluded: EXCLUSION_REASONS.map((reason) => ({ reason, label: EXCLUSION_LABELS[reason], count: p.excluded[reason] })),
    template_problem: p.templateProblem,
    budget: { daily_limit: account.dailyLimit, used, left, waves },
    eta: {
      rate_per_second: ratePerSecond,
      finish_at: new Date(eta.finishAt.getTime() + waveWait * 1000).toISOString(),
      sending_seconds: Math.round(eta.sendingSeconds),
      waiting_seconds: Math.round(eta.waitingSeconds + waveWait),
    },
    cost: {
      currency: cost.currency,
      total: cost.total,
      priced: cost.priced,
      unpriced: cost.unpriced,
      by_country: cost.byCountry,
    },
    frequency_cap: p.cap ? { max_messages: p.cap.maxMessages, days: p.cap.days } : null,
  };
}

/** A split test's variants' templates (name, language), in order; null outside a split test. */
async function variantTemplatesOf(db: Db, userId: number, ids: number[] | undefined) {
  if (!ids?.length) return null;
  const rows = await db
    .select({ id: templates.id, name: templates.name, language: templates.language })
    .from(templates)
    .where(and(inArray(templates.id, ids), eq(templates.userId, userId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A variant not found was already reported by variantsProblem.
  return ids.map((id) => {
    const t = byId.get(id);
    return t ? { template_name: t.name, template_language: t.language } : null;
  });
}

/** The first variant of a split test whose template cannot be sent, as "Variante B: <reason>" (null: all usable). */
async function variantsProblem(
  db: Db,
  userId: number,
  input: Pick<PreflightInput, 'templateId' | 'whatsappAccountId' | 'variantTemplateIds'>,
  explicit: boolean,
): Promise<string | null> {
  const ids = input.variantTemplateIds ?? [];
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] === input.templateId) continue;
    try {
      await assertTemplateUsable(db, userId, ids[i], input.whatsappAccountId, { partialMappings: explicit });
    } catch (err) {
      if (!(err instanceof AppError) || (err.statusCode !== 400 && err.statusCode !== 404)) throw err;
      return `Variante ${variantLabel(i)}: ${err.message}`;
    }
  }
  return null;
}
