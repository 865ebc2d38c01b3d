import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import {
  EXCLUDED_CSV_LIMIT,
  EXCLUSION_LABELS,
  preflightRequestSchema,
  type ExcludedContact,
  type ExcludedPage,
  type ExclusionReason,
  type PreflightRequest,
} from '@masivo/contract/preflight';
import type { Db } from '../../db/client';
import { jsonParam, pgCode, rowsOf } from '../../db/sql';
import { CSV_BOM, csvRow } from '../../lib/csv';
import { AppError } from '../../lib/errors';
import { parseWith } from '../../lib/parse-with';
import { classifiedAudienceCtes, PREFLIGHT_TIMED_OUT, REASON_MESSAGE, type AudienceRules } from './audience-classifier';
import { loadCampaignRow } from './campaign-queries';
import { preflightRules } from './preflight';

/**
 * The contacts behind one exclusion reason of a pre-flight, so the operator can correct them in
 * Kommo. They come from where the pre-flight's count comes from: before the first start, the
 * classifier over the filter (the very rules `countAudience` counts); once the audience is
 * frozen, the recipients skipped with that reason.
 */
export type ExcludedSource =
  | { kind: 'rules'; userId: number; rules: AudienceRules; campaignId: number | null }
  | { kind: 'frozen'; userId: number; campaignId: number };

interface ExcludedId {
  /** The page cursor: the contact id (rules) or the recipient id (frozen). */
  cursor: number;
  contactId: number | null;
  /** The number the classifier read (E.164 or BSUID), or null. */
  phone: string | null;
}

/** GET /api/campaigns/{id}/preflight/excluded: a saved campaign (404 when it is not the user's). */
export async function excludedSourceForCampaign(db: Db, userId: number, id: number): Promise<ExcludedSource> {
  const row = await loadCampaignRow(db, userId, id);
  if (row.audienceFrozenAt) return { kind: 'frozen', userId, campaignId: row.id };
  if (!row.whatsappAccountId || !row.templateId || !row.kommoAccountId) {
    throw new AppError(409, 'La campaña no tiene cuenta de WhatsApp, cuenta Kommo o plantilla');
  }
  const { rules } = await preflightRules(db, userId, {
    kommoAccountId: row.kommoAccountId,
    whatsappAccountId: row.whatsappAccountId,
    templateId: row.templateId,
    filters: row.filters,
    contactListOf: row.audienceKind === 'contact_list' ? row.id : null,
  });
  return { kind: 'rules', userId, rules, campaignId: row.id };
}

/** POST /api/campaigns/preflight/excluded: the campaign being built (the create payload). */
export async function excludedSourceForPayload(db: Db, userId: number, body: PreflightRequest): Promise<ExcludedSource> {
  const data = parseWith(preflightRequestSchema, body);
  const { rules } = await preflightRules(db, userId, {
    kommoAccountId: data.kommo_account_id,
    whatsappAccountId: data.whatsapp_account_id,
    templateId: data.template_id,
    filters: data.filters,
  });
  return { kind: 'rules', userId, rules, campaignId: null };
}

async function excludedIds(db: Db, source: ExcludedSource, reason: ExclusionReason, after: number, limit: number): Promise<ExcludedId[]> {
  if (source.kind === 'frozen') {
    const rows = await rowsOf<{ id: string | number; contact_id: string | number | null; phone: string | null }>(
      db,
      sql`select r.id, r.contact_id, r.phone from campaign_recipients r
          where r.campaign_id = ${source.campaignId} and r.user_id = ${source.userId} and r.status = 'skipped'
            and r.error_message = ${REASON_MESSAGE[reason]} and r.id > ${after}
          order by r.id limit ${limit}`,
    );
    return rows.map((r) => ({ cursor: Number(r.id), contactId: r.contact_id === null ? null : Number(r.contact_id), phone: r.phone }));
  }
  return db
    .transaction(async (tx) => {
      // As the freeze does: the embedded database keeps no statistics, and a nested loop of the
      // audience over its verdicts costs one pass per contact; a hash join is what fits.
      await tx.execute(sql`set local work_mem = '64MB'`);
      await tx.execute(sql`set local enable_nestloop = off`);
      // A disabled node is priced at 10^10: without this the plan would be JIT-compiled (db/sql.ts, withHashJoins).
      await tx.execute(sql`set local jit = off`);
      const rows = await rowsOf<{ contact_id: string | number; phone: string | null }>(
        tx,
        sql`with ${classifiedAudienceCtes(source.rules)}
            select contact_id, phone from classified
            where reason = ${reason} and contact_id > ${after}
            order by contact_id limit ${limit}`,
      );
      return rows.map((r) => ({ cursor: Number(r.contact_id), contactId: Number(r.contact_id), phone: r.phone }));
    })
    .catch((err: unknown) => {
      if (pgCode(err) === '57014') throw new AppError(503, PREFLIGHT_TIMED_OUT);
      throw err;
    });
}

/** Name and phone as stored, for a batch of ids (one indexed lookup of the tenant's contacts). */
async function withContacts(db: Db, userId: number, reason: ExclusionReason, ids: ExcludedId[]): Promise<ExcludedContact[]> {
  const wanted = ids.map((i) => i.contactId).filter((id): id is number => id !== null);
  const rows = wanted.length
    ? await rowsOf<{ id: string | number; kommo_id: string | number; name: string; phone_raw: string | null }>(
        db,
        sql`select c.id, c.kommo_id, c.name, c.phone_raw from contacts c
            where c.user_id = ${userId} and c.id in (select jsonb_array_elements_text(${jsonParam(wanted)})::bigint)`,
      )
    : [];
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return ids.map((i) => {
    const c = i.contactId === null ? undefined : byId.get(i.contactId);
    return {
      kommo_id: c ? Number(c.kommo_id) : null,
      name: c?.name ?? '',
      phone: c ? c.phone_raw : i.phone,
      normalized: i.phone,
      reason,
    };
  });
}

/** One page of the list, in contact order (keyset: `after` is the last page's `next_after`). */
export async function excludedPage(db: Db, source: ExcludedSource, reason: ExclusionReason, after: number, limit: number): Promise<ExcludedPage> {
  const ids = await excludedIds(db, source, reason, after, limit + 1);
  const more = ids.length > limit;
  const page = more ? ids.slice(0, limit) : ids;
  return {
    reason,
    label: EXCLUSION_LABELS[reason],
    contacts: await withContacts(db, source.userId, reason, page),
    next_after: more ? page[page.length - 1].cursor : null,
  };
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "excluidos-sin-telefono-valido-campana-12-2026-11-26.csv" */
export function excludedFileName(source: ExcludedSource, reason: ExclusionReason, now = new Date()): string {
  const slug = EXCLUSION_LABELS[reason]
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const of = source.campaignId === null ? 'borrador' : `campana-${source.campaignId}`;
  return `excluidos-${slug}-${of}-${now.toISOString().slice(0, 10)}.csv`;
}

const CSV_BATCH = 2_000;

/**
 * The list as CSV (BOM, formula-safe cells): the ids are read before the first byte (so a
 * refusal or a timeout is a proper answer, not a cut file), at most EXCLUDED_CSV_LIMIT of them;
 * the names and phones follow a batch at a time.
 */
export async function excludedCsvPlan(db: Db, source: ExcludedSource, reason: ExclusionReason): Promise<AsyncGenerator<string>> {
  const ids = await excludedIds(db, source, reason, 0, EXCLUDED_CSV_LIMIT);
  return (async function* () {
    yield CSV_BOM + csvRow(['ID Kommo', 'Nombre', 'Teléfono en Kommo', 'Teléfono normalizado', 'Motivo']);
    const label = capitalised(EXCLUSION_LABELS[reason]);
    for (let i = 0; i < ids.length; i += CSV_BATCH) {
      const contacts = await withContacts(db, source.userId, reason, ids.slice(i, i + CSV_BATCH));
      yield contacts.map((c) => csvRow([c.kommo_id === null ? '' : String(c.kommo_id), c.name, c.phone, c.normalized, label])).join('');
      // The embedded database answers on the event loop: a turn lets timers and requests through.
      await nextTurn();
    }
  })();
}
