// The contact custom fields of a simulated account. Ids depend on the account id, so two accounts
// never share field ids (as in Kommo), and the product has to use the ids it fetched.
import { PLANS } from '../data/index';

export type FieldType = 'multitext' | 'text' | 'select' | 'date';

export interface FieldEnum {
  id: number;
  value: string;
  sort: number;
}

export interface FieldDef {
  id: number;
  name: string;
  type: FieldType;
  code: string | null;
  sort: number;
  predefined: boolean;
  enums: FieldEnum[] | null;
}

export interface AccountFields {
  phone: FieldDef;
  email: FieldDef;
  position: FieldDef;
  ciudad: FieldDef;
  plan: FieldDef;
  birthDate: FieldDef;
  origen: FieldDef;
  /** In the order Kommo lists them. */
  all: FieldDef[];
  phoneEnumId: Record<string, number>;
  emailEnumId: Record<string, number>;
  planEnumId: Record<string, number>;
}

function enums(base: number, values: readonly string[]): FieldEnum[] {
  return values.map((value, i) => ({ id: base + i, value, sort: (i + 1) * 2 }));
}

function enumIds(list: FieldEnum[]): Record<string, number> {
  return Object.fromEntries(list.map((e) => [e.value, e.id]));
}

export function buildFields(accountId: number): AccountFields {
  const fieldBase = 1_800_000 + (accountId % 10_000) * 20;
  const enumBase = 1_200_000 + (accountId % 10_000) * 40;
  const phoneEnums = enums(enumBase, ['WORK', 'WORKDD', 'MOB', 'FAX', 'HOME', 'OTHER']);
  const emailEnums = enums(enumBase + 10, ['WORK', 'PRIV', 'OTHER']);
  const planEnums = enums(enumBase + 20, PLANS);
  const def = (offset: number, name: string, type: FieldType, code: string | null, enumList: FieldEnum[] | null = null): FieldDef => ({
    id: fieldBase + offset, name, type, code, sort: offset * 2 + 2, predefined: code !== null, enums: enumList,
  });
  const phone = def(0, 'Teléfono', 'multitext', 'PHONE', phoneEnums);
  const email = def(1, 'Email', 'multitext', 'EMAIL', emailEnums);
  const position = def(2, 'Cargo', 'text', 'POSITION');
  const ciudad = def(5, 'Ciudad', 'text', null);
  const plan = def(6, 'Plan', 'select', null, planEnums);
  const birthDate = def(7, 'Fecha de nacimiento', 'date', null);
  const origen = def(8, 'Origen', 'text', null);
  return {
    phone, email, position, ciudad, plan, birthDate, origen,
    all: [phone, email, position, ciudad, plan, birthDate, origen],
    phoneEnumId: enumIds(phoneEnums),
    emailEnumId: enumIds(emailEnums),
    planEnumId: enumIds(planEnums),
  };
}

/** The custom_fields list entry, as GET /api/v4/contacts/custom_fields returns it. */
export function fieldJson(f: FieldDef, accountId: number, selfBase: string) {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    account_id: accountId,
    code: f.code,
    sort: f.sort,
    is_api_only: false,
    enums: f.enums,
    group_id: null,
    required_statuses: [],
    is_deletable: !f.predefined,
    is_predefined: f.predefined,
    entity_type: 'contacts',
    remind: null,
    triggers: [],
    currency: null,
    hidden_statuses: [],
    _links: { self: { href: `${selfBase}/api/v4/contacts/custom_fields/${f.id}` } },
  };
}
