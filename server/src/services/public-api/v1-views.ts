import type { VariantLabel } from '@masivo/contract/split-test';
import { variantLabel } from '@masivo/contract/split-test';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Campaign } from '@masivo/contract/campaigns';
import type { Preflight } from '@masivo/contract/preflight';
import type {
  V1Campaign,
  v1CampaignListQuerySchema,
  v1ContactsQuerySchema,
  v1ContactSchema,
  v1RecipientSchema,
  v1RecipientsQuerySchema,
  v1TemplateSchema,
  v1TemplatesQuerySchema,
} from '@masivo/contract/public-api';
import { campaignIncompatibility, templateVariableSlots } from '@masivo/contract/variables';
import type { Db } from '../../db/client';
import { campaigns } from '../../db/schema/index';
import { intArray, rowsOf } from '../../db/sql';
import { priceOfMessage } from '../campaigns/campaign-cost';
import { countryOfRecipient } from '../campaigns/audience-classifier';
import { campaignDetail } from '../campaigns/campaign-queries';
import { loadRateCard } from '../pricing/rate-card-service';
import { ROUTE_OF_RECIPIENT } from '../campaigns/campaign-marketing';
import { RateIndex } from '../pricing/rate-lookup';

/**
 * The public API's views: its own stable shapes, read with keyset pagination (`cursor` is the
 * last id of the page before; a page never skips or repeats a row that moves meanwhile).
 */

const iso = (v: Date | string | null | undefined) => (v === null || v === undefined ? null : new Date(v).toISOString());
const nextCursor = <T extends { id: number | string }>(rows: T[], limit: number) => (rows.length > limit ? String(rows[limit - 1]!.id) : null);

export function toV1Campaign(c: Campaign, preflight?: Preflight | null): V1Campaign {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    status: c.status,
    audience: (c.audience_kind as V1Campaign['audience'] | undefined) ?? 'filter',
    whatsapp_account_id: c.whatsapp_account_id,
    whatsapp_account_ids: c.whatsapp_account_ids ?? (c.whatsapp_account_id === null ? [] : [c.whatsapp_account_id]),
    template_id: c.template_id,
    template_name: c.template_name,
    template_language: c.template_language,
    kommo_account_id: c.kommo_account_id,
    scheduled_at: c.scheduled_at,
    started_at: c.started_at,
    completed_at: c.completed_at,
    created_at: c.created_at,
    pause_reason: c.pause_reason,
    variants: c.split_test ? c.split_test.arms.map((a) => ({ variant: a.variant as VariantLabel, template_id: a.template_id, template_name: a.template_name })) : null,
    ab_test: c.split_test ? { ...c.split_test.ab_test } : null,
    split_result: c.split_test?.result
      ? {
          outcome: c.split_test.result.outcome,
          winner: (c.split_test.result.winner as VariantLabel | null) ?? null,
          summary: c.split_test.result.summary,
          p_value: c.split_test.result.p_value,
          insufficient_sample: c.split_test.result.insufficient_sample ?? false,
        }
      : null,
    counts: {
      total: c.total_recipients,
      pending: c.pending_count,
      sent: c.messages_sent,
      delivered: c.delivered_count,
      read: c.read_count,
      failed: c.failed_count,
      skipped: c.skipped_count,
      unknown: c.unknown_count,
      deferred: c.deferred_count,
    },
    ...(preflight !== undefined && {
      preflight: preflight && {
        matched: preflight.matched,
        attempted: preflight.attempted,
        excluded: preflight.excluded,
        estimated_cost_usd: preflight.cost.priced > 0 || preflight.cost.unpriced === 0 ? preflight.cost.total : null,
      },
    }),
  };
}

/** The organisation's campaigns, newest first; `numbers` limits them to some numbers (a scoped key). */
export async function listV1Campaigns(
  db: Db,
  orgId: number,
  numbers: readonly number[] | null,
  query: z.output<typeof v1CampaignListQuerySchema>,
): Promise<{ data: V1Campaign[]; next_cursor: string | null }> {
  const before = query.cursor ?? null;
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`select id from campaigns
        where user_id = ${orgId} and (${before}::bigint is null or id < ${before}::bigint)
          and (${numbers === null} or whatsapp_account_id = any(${intArray(numbers ?? [])}))
        order by id desc limit ${query.limit + 1}`,
  );
  const ids = rows.map((r) => Number(r.id));
  const full = ids.length
    ? await db.select().from(campaigns).where(and(eq(campaigns.userId, orgId), inArray(campaigns.id, ids.slice(0, query.limit)))).orderBy(desc(campaigns.id))
    : [];
  const data: V1Campaign[] = [];
  for (const row of full) data.push(toV1Campaign(await campaignDetail(db, orgId, row)));
  return { data, next_cursor: ids.length > query.limit ? String(ids[query.limit - 1]) : null };
}

interface RecipientRow {
  id: number;
  phone: string | null;
  bsuid: string | null;
  status: z.infer<typeof v1RecipientSchema>['status'];
  error_code: number | null;
  error_message: string | null;
  wamid: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  read_at: Date | null;
  failed_at: Date | null;
  last_reply: string | null;
  replied_at: Date | null;
  pricing_category: string | null;
  pricing_type: string | null;
  pricing_model: string | null;
  country: string | null;
  variant: number | string | null;
  route: 'messages' | 'marketing_messages' | null;
  click_count: number | string;
  account_id: number | null;
}

/** A campaign's recipients by id, with their status, Meta's error, reply and the cost of a delivered message. */
export async function listV1Recipients(
  db: Db,
  orgId: number,
  campaignId: number,
  query: z.output<typeof v1RecipientsQuerySchema>,
): Promise<{ data: z.infer<typeof v1RecipientSchema>[]; next_cursor: string | null }> {
  const after = query.cursor ?? '0';
  const rows = await rowsOf<RecipientRow>(
    db,
    sql`select id, phone, bsuid, status, error_code, error_message, wamid, sent_at, delivered_at, read_at, failed_at,
               last_reply, replied_at, pricing_category, pricing_type, pricing_model, country, variant,
               ${ROUTE_OF_RECIPIENT} as route, click_count,
               coalesce(r.whatsapp_account_id, (select c.whatsapp_account_id from campaigns c where c.id = ${campaignId})) as account_id
          from campaign_recipients r
         where campaign_id = ${campaignId} and user_id = ${orgId} and id > ${after}::bigint
           and (${query.status ?? null}::text is null or status = ${query.status ?? null}::text)
         order by id limit ${query.limit + 1}`,
  );
  const index = rows.some((r) => r.status === 'delivered' || r.status === 'read') ? new RateIndex((await loadRateCard(db, orgId)).rates) : null;
  const data = rows.slice(0, query.limit).map((r) => {
    let cost: number | null = null;
    if (index && (r.status === 'delivered' || r.status === 'read')) {
      const day = (iso(r.sent_at ?? r.delivered_at ?? r.read_at) ?? '').slice(0, 10);
      const country = r.country ?? countryOfRecipient(r.phone ?? r.bsuid ?? '');
      const price = priceOfMessage(index, { category: r.pricing_category, type: r.pricing_type, model: r.pricing_model, country, day });
      cost = price.status === 'priced' ? price.micros / 1_000_000 : price.status === 'free' ? 0 : null;
    }
    return {
      id: Number(r.id),
      phone: r.phone,
      bsuid: r.bsuid,
      status: r.status,
      error_code: r.error_code === null ? null : Number(r.error_code),
      error_message: r.error_message,
      wamid: r.wamid,
      whatsapp_account_id: r.account_id === null ? null : Number(r.account_id),
      sent_at: iso(r.sent_at),
      delivered_at: iso(r.delivered_at),
      read_at: iso(r.read_at),
      failed_at: iso(r.failed_at),
      reply: r.last_reply,
      replied_at: iso(r.replied_at),
      cost_usd: cost,
      variant: r.variant === null || r.variant === undefined ? null : variantLabel(Number(r.variant)),
      route: r.route ?? null,
      pricing_category: r.pricing_category,
      click_count: Number(r.click_count ?? 0),
    };
  });
  return { data, next_cursor: nextCursor(rows, query.limit) };
}

interface ContactRow {
  id: number;
  kommo_id: number;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
  tags: string[] | null;
  custom_fields: Record<string, string> | string | null;
}

/** A Kommo account's contacts by id, optionally those matching a text or holding a tag. */
export async function listV1Contacts(
  db: Db,
  orgId: number,
  query: z.output<typeof v1ContactsQuerySchema>,
): Promise<{ data: z.infer<typeof v1ContactSchema>[]; next_cursor: string | null }> {
  const after = query.cursor ?? '0';
  const search = query.search?.trim() ? `%${query.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await rowsOf<ContactRow>(
    db,
    sql`select id, kommo_id, name, first_name, last_name, phone, email, tags, custom_fields
          from contacts
         where user_id = ${orgId} and account_id = ${query.kommo_account_id} and id > ${after}::bigint
           and (${search}::text is null or name ilike ${search}::text or phone like ${search}::text or email ilike ${search}::text)
           and (${query.tag ?? null}::text is null or tags @> array[${query.tag ?? null}::text])
         order by id limit ${query.limit + 1}`,
  );
  const data = rows.slice(0, query.limit).map((r) => ({
    id: Number(r.id),
    kommo_id: Number(r.kommo_id),
    name: r.name ?? '',
    first_name: r.first_name ?? '',
    last_name: r.last_name ?? '',
    phone: r.phone,
    email: r.email,
    tags: r.tags ?? [],
    custom_fields: typeof r.custom_fields === 'string' ? JSON.parse(r.custom_fields) : (r.custom_fields ?? {}),
  }));
  return { data, next_cursor: nextCursor(rows, query.limit) };
}

interface TemplateRow {
  id: number;
  whatsapp_account_id: number;
  name: string;
  language: string;
  category: string;
  status: string;
  parameter_format: string | null;
  components: unknown;
  mapped: string[] | null;
}

/** The organisation's templates with the parameter keys a recipient may carry (required: not mapped in the console). */
export async function listV1Templates(
  db: Db,
  orgId: number,
  numbers: readonly number[] | null,
  query: z.output<typeof v1TemplatesQuerySchema>,
): Promise<{ data: z.infer<typeof v1TemplateSchema>[] }> {
  const rows = await rowsOf<TemplateRow>(
    db,
    sql`select t.id, t.whatsapp_account_id, t.name, t.language, t.category, t.status, t.parameter_format, t.components,
               array(select m.template_variable from template_variable_mappings m where m.template_id = t.id) as mapped
          from templates t
         where t.user_id = ${orgId}
           and (${query.whatsapp_account_id ?? null}::int is null or t.whatsapp_account_id = ${query.whatsapp_account_id ?? null}::int)
           and (${numbers === null} or t.whatsapp_account_id = any(${intArray(numbers ?? [])}))
         order by t.id limit 5000`,
  );
  return {
    data: rows.map((r) => {
      const components = (typeof r.components === 'string' ? JSON.parse(r.components) : r.components) ?? [];
      const mapped = new Set(r.mapped ?? []);
      return {
        id: Number(r.id),
        whatsapp_account_id: Number(r.whatsapp_account_id),
        name: r.name,
        language: r.language,
        category: r.category,
        status: r.status,
        parameter_format: r.parameter_format ?? 'POSITIONAL',
        params: templateVariableSlots(components, r.parameter_format).map((s) => ({ key: s.key, label: s.label, kind: s.kind, required: !mapped.has(s.key) })),
        campaign_compatible: campaignIncompatibility(components) === null,
      };
    }),
  };
}
