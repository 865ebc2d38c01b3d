import type { CountryCode } from 'libphonenumber-js/max';
import { toE164 } from '../../lib/phone';
import type { KommoContact, KommoContactField, KommoFieldValue } from '../../integrations/kommo/types';

/** A contact as stored: one row of the batch upsert (snake_case, as the SQL reads it). */
export interface ContactRecord {
  kommo_id: number;
  name: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  phone_raw: string | null;
  email: string | null;
  tags: string[];
  custom_fields: Record<string, string>;
  kommo_updated_at: number;
}

export interface MapperOptions {
  phoneFieldId: number;
  /** The Kommo account's country: the region of numbers typed in national format. */
  country: CountryCode | undefined;
}

/** Half of a surrogate pair with its partner missing: PostgreSQL's jsonb rejects it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Strips what PostgreSQL text cannot hold and keeps values to a sane size. The cut counts code
 * points, so an emoji at the limit is kept or dropped whole, never split into a lone half.
 */
export function clean(v: string, max = 1000): string {
  const text = v.split('\u0000').join('').replace(LONE_SURROGATE, '\uFFFD').trim();
  if (text.length <= max) return text;
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n++ >= max) break;
    out += ch;
  }
  return out;
}

function formatValue(field: KommoContactField, v: KommoFieldValue): string {
  const value = v.value;
  if (value === null || value === undefined) return '';
  if (field.field_type === 'date' || field.field_type === 'birthday' || field.field_type === 'date_time') {
    const n = Number(value);
    if (Number.isFinite(n) && n !== 0) {
      const iso = new Date(n * 1000).toISOString();
      return field.field_type === 'date_time' ? iso.slice(0, 16).replace('T', ' ') : iso.slice(0, 10);
    }
  }
  if (typeof value === 'boolean') return value ? 'Sí' : 'No';
  return clean(String(value));
}

function fieldValues(field: KommoContactField): string[] {
  return (field.values ?? []).map((v) => formatValue(field, v)).filter((v) => v !== '');
}

export function mapContact(c: KommoContact, opts: MapperOptions): ContactRecord {
  let phones: string[] = [];
  let email: string | null = null;
  const custom: Record<string, string> = {};
  for (const field of c.custom_fields_values ?? []) {
    if (!field) continue;
    if (Number(field.field_id) === opts.phoneFieldId) {
      phones = fieldValues(field);
    } else if (field.field_code === 'EMAIL') {
      email ??= fieldValues(field)[0] ?? null;
    } else {
      // Field values live under the field name, as the filters address them; several values join.
      const name = clean(field.field_name ?? String(field.field_id), 200);
      const joined = fieldValues(field).join(', ');
      if (name && joined) custom[name] = joined;
    }
  }
  let phone: string | null = null;
  let phoneRaw: string | null = phones[0] ?? null;
  for (const raw of phones) {
    const e164 = toE164(raw, opts.country);
    if (e164) {
      phone = e164;
      phoneRaw = raw;
      break;
    }
  }
  const first = clean(c.first_name ?? '', 300);
  const last = clean(c.last_name ?? '', 300);
  const tags = [...new Set((c._embedded?.tags ?? []).map((t) => clean(t?.name ?? '', 200)).filter(Boolean))];
  return {
    kommo_id: Number(c.id),
    name: clean(c.name ?? '', 500) || [first, last].filter(Boolean).join(' '),
    first_name: first,
    last_name: last,
    phone,
    phone_raw: phoneRaw ? clean(phoneRaw, 100) : null,
    email: email ? clean(email, 320) : null,
    tags,
    custom_fields: custom,
    kommo_updated_at: Number(c.updated_at ?? 0) || 0,
  };
}
