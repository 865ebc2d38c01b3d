import { variantLabel } from '@masivo/contract/split-test';
import { SEND_ROUTE_LABELS, type SendRoute } from '@masivo/contract/marketing-messages';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import { PRICING_CATEGORY_LABELS, RECIPIENT_STATUS_LABELS, type CampaignResultsQuery, type RecipientStatus } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { isoOf, rowsOf } from '../../db/sql';
import type { CsvFormat } from '@masivo/contract/common';
import { CSV_BOM, csvRow } from '../../lib/csv';
import { countryOfPhone } from '../../lib/phone-country';
import { loadRateCard } from '../pricing/rate-card-service';
import { dayOf, normalizeCategory, RateIndex } from '../pricing/rate-lookup';
import { loadCampaignRow } from './campaign-queries';
import type { CampaignRow } from './campaign-view';
import { recipientGroupWhere } from './recipient-groups';

const BATCH = 2_000;

export const NO_RATE = 'sin tarifa';

export const RESULTS_COLUMNS = [
  'Contacto',
  'ID de contacto',
  'Teléfono',
  'Estado',
  'Enviado',
  'Entregado',
  'Leído',
  'Falló',
  'Respondió',
  'Código de error',
  'Mensaje de error',
  'Última respuesta',
  'Respuestas',
  'Botón tocado',
  'Categoría de cobro',
  'Tipo de cobro',
  'Costo (USD)',
  'Variante',
  'Plantilla',
  'Número de envío',
  'Ruta',
  'Clics',
  'Primer clic',
  'Último clic',
] as const;

/** Meta's `pricing.type` of a status webhook, in Spanish. */
const PRICING_TYPE_LABELS: Record<string, string> = {
  regular: 'Normal',
  free_customer_service: 'Gratis (ventana de atención)',
  free_entry_point: 'Gratis (punto de entrada)',
};

/** Statuses of a message Meta accepted, the only ones that can be charged. */
const CHARGEABLE: ReadonlySet<RecipientStatus> = new Set(['sent', 'delivered', 'read']);

interface RawResult {
  id: number | string;
  contact_id: number | string | null;
  contact_name: string | null;
  phone: string | null;
  status: RecipientStatus;
  sent_at: string | null;
  delivered_at: string | null;
  read_at: string | null;
  failed_at: string | null;
  replied_at: string | null;
  error_code: number | null;
  error_message: string | null;
  last_reply: string | null;
  reply_count: number | string;
  button_tapped: string | null;
  pricing_category: string | null;
  pricing_type: string | null;
  country: string | null;
  variant: number | string | null;
  whatsapp_account_id: number | string | null;
  route: string | null;
  click_count: number | string;
  clicked_at: string | null;
  last_clicked_at: string | null;
}

/**
 * The export's WHERE over `campaign_recipients r`, built before the first byte is sent so a bad
 * filter (a `tapped` without button) is a 400, never a truncated file.
 */
export async function resultsExportPlan(db: Db, userId: number, id: number, query: CampaignResultsQuery, now = new Date()) {
  const campaign = await loadCampaignRow(db, userId, id);
  const conditions: SQL[] = [sql`r.campaign_id = ${campaign.id}`, sql`r.user_id = ${userId}::int`];
  if (query.status) conditions.push(sql`r.status = ${query.status}`);
  const group = recipientGroupWhere(query, now);
  if (group) conditions.push(group);
  return { campaign, where: sql.join(conditions, sql` and `) };
}

/**
 * A campaign's recipients as CSV text chunks, with the contacts export's rules (BOM, formula
 * neutralising in lib/csv.ts). Rows are read by id a batch at a time (keyset), so memory stays
 * flat at any size. The cost of each accepted message is priced like the pre-flight estimate,
 * with the tenant's rate card: the rate in force on the send day for the message's category
 * (Meta's `pricing.category` when reported, else the template's) and the recipient's country;
 * a free `pricing.type` costs 0; no rate is "sin tarifa", never a guess. Counts and costs are
 * numbers, so `csv_es` writes them with a decimal comma.
 */
export async function* exportResultsCsv(
  db: Db,
  p: { userId: number; campaign: CampaignRow; where: SQL; format?: CsvFormat; counted?: { rows: number } },
): AsyncGenerator<string> {
  yield CSV_BOM + csvRow([...RESULTS_COLUMNS], p.format);
  const [template] = await rowsOf<{ category: string | null }>(
    db,
    sql`select category from templates where id = ${p.campaign.templateId ?? 0}::int and user_id = ${p.userId}::int`,
  );
  const templateCategory = template?.category ?? null;
  // The numbers a row can name: the campaign's own and, in a several-number campaign, each of its
  // numbers (read once, a handful of rows).
  const numbers = new Map(
    (
      await rowsOf<{ id: number | string; phone: string }>(
        db,
        sql`select w.id, coalesce(w.display_phone_number, w.phone_number) as phone from whatsapp_accounts w
            where w.user_id = ${p.userId}::int
              and (w.id = ${p.campaign.whatsappAccountId ?? 0}::int
                or w.id in (select n.whatsapp_account_id from campaign_numbers n where n.campaign_id = ${p.campaign.id}::int))`,
      )
    ).map((n) => [Number(n.id), n.phone]),
  );
  const campaignNumber = p.campaign.whatsappAccountId === null ? null : (numbers.get(p.campaign.whatsappAccountId) ?? null);
  const variants = p.campaign.splitTest?.variants ?? null;
  /** The template a row is (or will be) sent with: its arm's in a split test, else the campaign's. */
  const templateOf = (variant: number | null) =>
    variants ? (variant === null ? null : (variants[variant]?.template_name ?? null)) : (p.campaign.templateName ?? null);
  const rates = new RateIndex((await loadRateCard(db, p.userId)).rates);
  let lastId = 0;
  for (;;) {
    const batch = await rowsOf<RawResult>(
      db,
      sql`select r.id, r.contact_id, c.name as contact_name, coalesce(r.phone, c.phone_raw) as phone, r.status,
            ${isoOf(sql`r.sent_at`)} as sent_at, ${isoOf(sql`r.delivered_at`)} as delivered_at,
            ${isoOf(sql`r.read_at`)} as read_at, ${isoOf(sql`r.failed_at`)} as failed_at,
            ${isoOf(sql`r.replied_at`)} as replied_at, r.error_code, r.error_message, r.last_reply, r.reply_count,
            r.button_tapped, r.pricing_category, r.pricing_type, r.country, r.variant,
            r.whatsapp_account_id, r.route, r.click_count, ${isoOf(sql`r.clicked_at`)} as clicked_at,
            ${isoOf(sql`coalesce(r.last_clicked_at, r.clicked_at)`)} as last_clicked_at
          from campaign_recipients r
          left join contacts c on c.id = r.contact_id and c.user_id = ${p.userId}::int
          where ${p.where} and r.id > ${lastId}
          order by r.id
          limit ${BATCH}`,
    );
    if (batch.length === 0) return;
    let chunk = '';
    for (const r of batch) {
      lastId = Number(r.id);
      const variant = r.variant === null || r.variant === undefined ? null : Number(r.variant);
      chunk += csvRow([
        r.contact_name,
        r.contact_id === null ? null : String(r.contact_id),
        r.phone,
        RECIPIENT_STATUS_LABELS[r.status] ?? r.status,
        r.sent_at,
        r.delivered_at,
        r.read_at,
        r.failed_at,
        r.replied_at,
        r.error_code === null ? null : String(r.error_code),
        r.error_message,
        r.last_reply,
        Number(r.reply_count ?? 0),
        r.button_tapped,
        r.pricing_category ? (PRICING_CATEGORY_LABELS[r.pricing_category.toLowerCase()] ?? r.pricing_category) : null,
        r.pricing_type ? (PRICING_TYPE_LABELS[r.pricing_type.toLowerCase()] ?? r.pricing_type) : null,
        costOf(r, templateCategory, rates),
        // A split test's arm ("Prueba A/B"), so the file is read per variant.
        variant === null ? null : variantLabel(variant),
        templateOf(variant),
        // The number it is (or will be) sent from: its own in a several-number campaign.
        r.whatsapp_account_id === null ? campaignNumber : (numbers.get(Number(r.whatsapp_account_id)) ?? null),
        // The route that carried it; a message sent before routes were recorded went by /messages.
        r.route ? (SEND_ROUTE_LABELS[r.route as SendRoute] ?? r.route) : r.sent_at ? SEND_ROUTE_LABELS.messages : null,
        Number(r.click_count ?? 0),
        r.clicked_at,
        r.last_clicked_at,
      ], p.format);
    }
    // Counted for the export's activity-log entry.
    if (p.counted) p.counted.rows += batch.length;
    yield chunk;
    if (batch.length < BATCH) return;
    // The embedded database answers on the event loop: a turn between batches keeps timers (the
    // sender's pacer, leases) running during a long export.
    await nextTurn();
  }
}

/** One recipient's cost in USD: '' when nothing was charged, "sin tarifa" without a rate, else a number. */
export function costOf(
  r: Pick<RawResult, 'status' | 'sent_at' | 'pricing_category' | 'pricing_type' | 'country' | 'phone'>,
  templateCategory: string | null,
  rates: RateIndex,
): number | string {
  if (!CHARGEABLE.has(r.status)) return '';
  if (r.pricing_type && r.pricing_type.toLowerCase().startsWith('free_')) return 0;
  const category = normalizeCategory(r.pricing_category ?? templateCategory ?? '');
  const country = r.country ?? (r.phone ? countryOfPhone(r.phone) : null);
  const day = dayOf(r.sent_at ? new Date(r.sent_at) : new Date());
  const rate = category ? (rates.forCountry(category, country, day)?.usd_per_message ?? null) : null;
  return rate === null ? NO_RATE : Number(rate);
}

/** "resultados-{campaña}-{fecha}.csv", safe in a header. */
export function resultsFileName(campaign: CampaignRow, now = new Date()): string {
  const slug = campaign.name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `resultados-${slug || campaign.id}-${now.toISOString().slice(0, 10)}.csv`;
}
