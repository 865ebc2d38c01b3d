// Kommo's webhook bodies: `application/x-www-form-urlencoded`, PHP-style nested keys
// `{entity}[{action}][{i}][field]` (e.g. `leads[status][0][status_id]`), then `account[…]`.
// Values are strings, as form fields are. Field names follow Kommo's documented samples
// (old names such as `last_modified`, `date_create`, `modified_user_id` included).
import type { KommoAccount, ResolvedContact } from './account';
import type { Lead } from './crm';

export type LeadAction = 'add' | 'update' | 'status';
export type ContactAction = 'add' | 'update' | 'delete' | 'restore';

/** Flattens nested objects and arrays into PHP-style form keys and encodes them. */
export function formEncode(payload: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const walk = (key: string, v: unknown): void => {
    if (v === undefined) return;
    if (v === null) return params.append(key, '');
    if (Array.isArray(v)) return v.forEach((x, i) => walk(`${key}[${i}]`, x));
    if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(`${key}[${k}]`, x);
      return;
    }
    params.append(key, String(v));
  };
  for (const [k, v] of Object.entries(payload)) walk(k, v);
  return params.toString();
}

export function accountPart(account: KommoAccount, self: string) {
  return { subdomain: account.subdomain, id: account.id, _links: { self } };
}

/** A lead item; `old` is set for `status` (and `update` items of a stage move). */
export function leadItem(account: KommoAccount, lead: Lead, old?: { statusId: number; pipelineId: number }) {
  const user = account.currentUserId;
  const item: Record<string, unknown> = {
    id: lead.id,
    name: lead.name,
    status_id: lead.statusId,
    ...(old ? { old_status_id: old.statusId } : {}),
    price: lead.price,
    responsible_user_id: user,
    last_modified: lead.updatedAt,
    modified_user_id: user,
    created_user_id: user,
    date_create: lead.createdAt,
    pipeline_id: lead.pipelineId,
    ...(old ? { old_pipeline_id: old.pipelineId } : {}),
    account_id: account.id,
    created_at: lead.createdAt,
    updated_at: lead.updatedAt,
  };
  if (lead.customFieldsValues?.length) {
    item.custom_fields = lead.customFieldsValues.map((f) => ({
      id: f.field_id,
      name: f.field_name ?? '',
      values: f.values.map((v) => (v.enum_id === undefined ? { value: v.value } : { value: v.value, enum: v.enum_id })),
    }));
  }
  return item;
}

/** A contact item for add / update / restore; `leadIds` become `linked_leads_id`. */
export function contactItem(account: KommoAccount, c: ResolvedContact, leadIds: number[]) {
  const f = account.fields;
  const customFields: unknown[] = [];
  if (c.phones.length > 0) {
    customFields.push({
      id: f.phone.id, name: f.phone.name, code: 'PHONE',
      values: c.phones.map((p) => ({ value: p.value, enum: f.phoneEnumId[p.enumCode] ?? f.phoneEnumId.OTHER })),
    });
  }
  if (c.email) customFields.push({ id: f.email.id, name: f.email.name, code: 'EMAIL', values: [{ value: c.email, enum: f.emailEnumId.WORK }] });
  for (const [name, def] of [['Ciudad', f.ciudad], ['Plan', f.plan], ['Fecha de nacimiento', f.birthDate], ['Origen', f.origen]] as const) {
    const value = c.custom[name];
    if (value) customFields.push({ id: def.id, name: def.name, values: [{ value }] });
  }
  const item: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    first_name: c.firstName,
    last_name: c.lastName,
    responsible_user_id: c.responsibleUserId,
    date_create: c.createdAt,
    last_modified: c.updatedAt,
    created_user_id: c.responsibleUserId,
    modified_user_id: c.responsibleUserId,
    account_id: account.id,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    type: 'contact',
  };
  if (customFields.length > 0) item.custom_fields = customFields;
  if (c.tags.length > 0) item.tags = c.tags.map((name) => ({ id: account.tags.ensure(name).id, name }));
  if (leadIds.length > 0) item.linked_leads_id = Object.fromEntries(leadIds.map((id) => [id, { ID: id }]));
  return item;
}

/** The item of a deleted contact: only its id and type, as Kommo sends it. */
export function deletedContactItem(id: number) {
  return { id, type: 'contact' };
}

export function leadsBody(account: KommoAccount, self: string, action: LeadAction, items: unknown[]): string {
  return formEncode({ leads: { [action]: items }, account: accountPart(account, self) });
}

export function contactsBody(account: KommoAccount, self: string, action: ContactAction, items: unknown[]): string {
  return formEncode({ contacts: { [action]: items }, account: accountPart(account, self) });
}
