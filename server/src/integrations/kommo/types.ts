/** The parts of Kommo API v4 payloads the product reads (external-apis.md, Part B). */
export interface KommoFieldValue {
  value?: string | number | boolean | null;
  enum_id?: number;
  enum_code?: string;
}

export interface KommoContactField {
  field_id: number;
  field_name?: string;
  field_code?: string | null;
  field_type?: string;
  values?: KommoFieldValue[] | null;
}

export interface KommoContact {
  id: number;
  name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  updated_at?: number | null;
  custom_fields_values?: KommoContactField[] | null;
  _embedded?: { tags?: { id?: number; name?: string | null }[] | null } | null;
}

export interface KommoAccountInfo {
  id: number;
  name?: string;
  subdomain?: string;
  country?: string | null;
}

export interface KommoCustomField {
  id: number;
  name: string;
  type: string;
  code: string | null;
}

export interface KommoCredentials {
  subdomain: string;
  accessToken: string;
}
