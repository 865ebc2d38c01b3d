// Serialises a contact exactly in Kommo's list shape (custom_fields_values, _embedded.tags, ...).
import type { KommoAccount, ResolvedContact } from './account';

interface FieldValue {
  value: string | number;
  enum_id?: number;
  enum_code?: string;
}

function field(id: number, name: string, type: string, code: string | null, values: FieldValue[]) {
  return { field_id: id, field_name: name, field_code: code, field_type: type, values };
}

/** 'YYYY-MM-DD' -> unix seconds at 00:00 UTC, the way Kommo returns date fields. */
function dateToUnix(date: string): number | null {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms / 1000;
}

function customFieldsValues(account: KommoAccount, c: ResolvedContact) {
  const f = account.fields;
  const out = [];
  if (c.phones.length > 0) {
    out.push(field(f.phone.id, f.phone.name, 'multitext', 'PHONE', c.phones.map((p) => ({
      value: p.value, enum_id: f.phoneEnumId[p.enumCode] ?? f.phoneEnumId.OTHER, enum_code: p.enumCode,
    }))));
  }
  if (c.email) {
    out.push(field(f.email.id, f.email.name, 'multitext', 'EMAIL', [{ value: c.email, enum_id: f.emailEnumId.WORK, enum_code: 'WORK' }]));
  }
  const city = c.custom.Ciudad;
  if (city) out.push(field(f.ciudad.id, f.ciudad.name, 'text', null, [{ value: city }]));
  const plan = c.custom.Plan;
  if (plan) {
    const enumId = f.planEnumId[plan];
    out.push(field(f.plan.id, f.plan.name, 'select', null, [enumId === undefined ? { value: plan } : { value: plan, enum_id: enumId }]));
  }
  const birth = c.custom['Fecha de nacimiento'];
  const birthUnix = birth ? dateToUnix(birth) : null;
  if (birthUnix !== null) out.push(field(f.birthDate.id, f.birthDate.name, 'date', null, [{ value: birthUnix }]));
  const origin = c.custom.Origen;
  if (origin) out.push(field(f.origen.id, f.origen.name, 'text', null, [{ value: origin }]));
  return out.length > 0 ? out : null;
}

export function contactJson(account: KommoAccount, c: ResolvedContact, selfBase: string) {
  return {
    id: c.id,
    name: c.name,
    first_name: c.firstName,
    last_name: c.lastName,
    responsible_user_id: c.responsibleUserId,
    group_id: 0,
    created_by: c.responsibleUserId,
    updated_by: c.responsibleUserId,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    closest_task_at: null,
    is_deleted: false,
    is_unsorted: false,
    custom_fields_values: customFieldsValues(account, c),
    account_id: account.id,
    _links: { self: { href: `${selfBase}/api/v4/contacts/${c.id}` } },
    _embedded: { tags: c.tags.map((name) => account.tags.ensure(name)), companies: [] },
  };
}
