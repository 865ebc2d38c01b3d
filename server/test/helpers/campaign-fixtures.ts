import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client';
import { rowsOf } from '../../src/db/sql';
import type { TemplateComponent } from '../../src/db/schema/whatsapp';
import type { SecretBox } from '../../src/lib/secret-box';

/**
 * Rows the campaign tests and benchmarks need, written straight into the database so they
 * do not depend on the Kommo sync or the account screens.
 */

async function one<T>(db: Db, query: ReturnType<typeof sql>): Promise<T> {
  const [row] = await rowsOf<T>(db, query);
  return row;
}

export async function insertKommoAccount(db: Db, secrets: SecretBox, userId: number, subdomain = 'demo'): Promise<number> {
  const row = await one<{ id: number }>(
    db,
    sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, country)
        values (${userId}, ${subdomain}, ${secrets.seal('kommo-token')}, 1, 'AR') returning id`,
  );
  return Number(row.id);
}

export interface WhatsAppAccountSeed {
  phoneNumberId: string;
  wabaId: string;
  token: string;
  ratePerSecond?: number;
  kommoAccountId?: number | null;
  verifyToken?: string | null;
  isActive?: boolean;
  qualityRating?: string;
  /** Ownership confirmed by Meta (default true): only verified accounts receive inbound webhooks. */
  ownerVerified?: boolean;
}

export async function insertWhatsAppAccount(db: Db, secrets: SecretBox, userId: number, a: WhatsAppAccountSeed): Promise<number> {
  const row = await one<{ id: number }>(
    db,
    sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, access_token_enc,
          business_account_id, kommo_account_id, webhook_verify_token, rate_per_second, is_active, quality_rating,
          owner_verified_at)
        values (${userId}, ${'Cuenta ' + a.phoneNumberId}, '+5491100000000', ${a.phoneNumberId}, ${secrets.seal(a.token)},
          ${a.wabaId}, ${a.kommoAccountId ?? null}, ${a.verifyToken ?? null}, ${a.ratePerSecond ?? 80},
          ${a.isActive ?? true}, ${a.qualityRating ?? 'GREEN'}, ${a.ownerVerified === false ? null : sql`now()`})
        returning id`,
  );
  return Number(row.id);
}

/** The template the simulator knows as `promo` (es): a text header and a body with two variables. */
export const PROMO_COMPONENTS: TemplateComponent[] = [
  { type: 'HEADER', format: 'TEXT', text: 'Oferta {{1}}', example: { header_text: ['Pro'] } },
  { type: 'BODY', text: 'Hola {{1}}, desde {{2}} tenemos una oferta.', example: { body_text: [['Ana', 'Lima']] } },
  { type: 'FOOTER', text: 'Responde BAJA para no recibir más' },
];

export const PROMO_MAPPINGS = [
  { templateVariable: 'header_variable_1', sourceField: 'custom_fields.Plan', defaultValue: 'Especial' },
  { templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: 'cliente' },
  { templateVariable: 'variable_2', sourceField: 'custom_fields.Ciudad', defaultValue: 'tu ciudad' },
];

export async function insertTemplate(
  db: Db,
  userId: number,
  whatsappAccountId: number,
  t: { name?: string; language?: string; status?: string; components?: TemplateComponent[] } = {},
): Promise<number> {
  const row = await one<{ id: number }>(
    db,
    sql`insert into templates (user_id, whatsapp_account_id, name, language, category, status, components)
        values (${userId}, ${whatsappAccountId}, ${t.name ?? 'promo'}, ${t.language ?? 'es'}, 'marketing',
          ${t.status ?? 'approved'}, ${JSON.stringify(t.components ?? PROMO_COMPONENTS)}::jsonb)
        returning id`,
  );
  return Number(row.id);
}

export async function insertMappings(
  db: Db,
  userId: number,
  templateId: number,
  mappings: Array<{ templateVariable: string; sourceField: string; defaultValue?: string }> = PROMO_MAPPINGS,
): Promise<void> {
  for (const m of mappings) {
    await db.execute(sql`insert into template_variable_mappings (user_id, template_id, template_variable, source_field, default_value)
      values (${userId}, ${templateId}, ${m.templateVariable}, ${m.sourceField}, ${m.defaultValue ?? ''})`);
  }
}

/** Contact i (1-based) has this phone: valid Argentine mobiles, all distinct. */
export const phoneOf = (i: number) => `+54911${String(i).padStart(8, '0')}`;
/** What the simulator sees as `to` digits for contact i. */
export const digitsOf = (i: number) => phoneOf(i).slice(1);

/**
 * `count` contacts in one statement (1,000,000 take seconds): phones from phoneOf, tag
 * `vip` on every 10th, Ciudad/Plan custom fields. kommo_id = i so tests can address them.
 */
export async function insertContacts(db: Db, userId: number, accountId: number, count: number, fromIndex = 1): Promise<void> {
  await db.execute(sql`insert into contacts (user_id, account_id, kommo_id, name, first_name, last_name, phone, phone_raw, tags, custom_fields)
    select ${userId}, ${accountId}, i, 'Cliente ' || i, 'Nombre' || i, 'Apellido', '+54911' || lpad(i::text, 8, '0'),
      '11 ' || lpad(i::text, 8, '0'),
      case when i % 10 = 0 then array['vip'] else array['general'] end,
      jsonb_build_object('Ciudad', case when i % 3 = 0 then 'Córdoba' else 'Rosario' end, 'Plan', 'Pro')
    from generate_series(${fromIndex}::int, ${fromIndex + count - 1}::int) as i`);
}

/** One contact with exactly these values (phone may be null or invalid). */
export async function insertContact(
  db: Db,
  userId: number,
  accountId: number,
  c: { kommoId: number; name?: string; firstName?: string; phone: string | null; phoneRaw?: string | null; tags?: string[] },
): Promise<number> {
  const row = await one<{ id: number }>(
    db,
    sql`insert into contacts (user_id, account_id, kommo_id, name, first_name, phone, phone_raw, tags)
        values (${userId}, ${accountId}, ${c.kommoId}, ${c.name ?? 'Contacto'}, ${c.firstName ?? ''}, ${c.phone},
          ${c.phoneRaw ?? c.phone}, ${sql.raw(`array[${(c.tags ?? []).map((t) => `'${t.replace(/'/g, "''")}'`).join(',')}]::text[]`)})
        returning id`,
  );
  return Number(row.id);
}

export interface CampaignWorld {
  kommoAccountId: number;
  whatsappAccountId: number;
  templateId: number;
}

/** A Kommo account, a WhatsApp account on the simulator's number, the mapped `promo` template, and contacts. */
export async function seedCampaignWorld(
  db: Db,
  secrets: SecretBox,
  userId: number,
  opts: { number: WhatsAppAccountSeed; contacts?: number; subdomain?: string },
): Promise<CampaignWorld> {
  const kommoAccountId = await insertKommoAccount(db, secrets, userId, opts.subdomain ?? `demo${opts.number.phoneNumberId}`);
  const whatsappAccountId = await insertWhatsAppAccount(db, secrets, userId, { kommoAccountId, ...opts.number });
  const templateId = await insertTemplate(db, userId, whatsappAccountId);
  await insertMappings(db, userId, templateId);
  if (opts.contacts) await insertContacts(db, userId, kommoAccountId, opts.contacts);
  return { kommoAccountId, whatsappAccountId, templateId };
}

/** The simulator's copy of the `promo` template. */
export const simPromoTemplate = (wabaId: string) => ({
  wabaId,
  name: 'promo',
  language: 'es',
  category: 'MARKETING' as const,
  components: PROMO_COMPONENTS as Array<{ type: string; text?: string; format?: string; example?: unknown }>,
});

/** Counters recomputed from the recipient rows, the way recipient-transitions.ts defines them. */
export async function countersFromRows(db: Db, campaignId: number) {
  const [row] = await rowsOf<Record<string, number>>(db, sql`select count(*)::int as total_recipients,
      (count(*) filter (where sent_at is not null))::int as messages_sent,
      (count(*) filter (where delivered_at is not null))::int as delivered_count,
      (count(*) filter (where read_at is not null))::int as read_count,
      (count(*) filter (where status = 'failed'))::int as failed_count,
      (count(*) filter (where status = 'skipped'))::int as skipped_count,
      (count(*) filter (where status = 'unknown'))::int as unknown_count,
      (count(*) filter (where status in ('pending', 'sending')))::int as pending_count
    from campaign_recipients where campaign_id = ${campaignId}`);
  return row;
}
