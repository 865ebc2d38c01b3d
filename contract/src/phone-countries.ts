import { z } from 'zod';

/**
 * The countries a Kommo account's phones can default to: the ISO 3166-1 alpha-2 codes that have
 * phone-number metadata in libphonenumber (its list without AC, TA and XK, which are not ISO
 * 3166-1 codes). server/test/kommo-default-country.test.ts holds the two lists together.
 */
export const PHONE_COUNTRIES = [
  'AD', 'AE', 'AF', 'AG', 'AI', 'AL', 'AM', 'AO', 'AR', 'AS', 'AT', 'AU', 'AW', 'AX', 'AZ', 'BA', 'BB', 'BD', 'BE', 'BF',
  'BG', 'BH', 'BI', 'BJ', 'BL', 'BM', 'BN', 'BO', 'BQ', 'BR', 'BS', 'BT', 'BW', 'BY', 'BZ', 'CA', 'CC', 'CD', 'CF', 'CG',
  'CH', 'CI', 'CK', 'CL', 'CM', 'CN', 'CO', 'CR', 'CU', 'CV', 'CW', 'CX', 'CY', 'CZ', 'DE', 'DJ', 'DK', 'DM', 'DO', 'DZ',
  'EC', 'EE', 'EG', 'EH', 'ER', 'ES', 'ET', 'FI', 'FJ', 'FK', 'FM', 'FO', 'FR', 'GA', 'GB', 'GD', 'GE', 'GF', 'GG', 'GH',
  'GI', 'GL', 'GM', 'GN', 'GP', 'GQ', 'GR', 'GT', 'GU', 'GW', 'GY', 'HK', 'HN', 'HR', 'HT', 'HU', 'ID', 'IE', 'IL', 'IM',
  'IN', 'IO', 'IQ', 'IR', 'IS', 'IT', 'JE', 'JM', 'JO', 'JP', 'KE', 'KG', 'KH', 'KI', 'KM', 'KN', 'KP', 'KR', 'KW', 'KY',
  'KZ', 'LA', 'LB', 'LC', 'LI', 'LK', 'LR', 'LS', 'LT', 'LU', 'LV', 'LY', 'MA', 'MC', 'MD', 'ME', 'MF', 'MG', 'MH', 'MK',
  'ML', 'MM', 'MN', 'MO', 'MP', 'MQ', 'MR', 'MS', 'MT', 'MU', 'MV', 'MW', 'MX', 'MY', 'MZ', 'NA', 'NC', 'NE', 'NF', 'NG',
  'NI', 'NL', 'NO', 'NP', 'NR', 'NU', 'NZ', 'OM', 'PA', 'PE', 'PF', 'PG', 'PH', 'PK', 'PL', 'PM', 'PR', 'PS', 'PT', 'PW',
  'PY', 'QA', 'RE', 'RO', 'RS', 'RU', 'RW', 'SA', 'SB', 'SC', 'SD', 'SE', 'SG', 'SH', 'SI', 'SJ', 'SK', 'SL', 'SM', 'SN',
  'SO', 'SR', 'SS', 'ST', 'SV', 'SX', 'SY', 'SZ', 'TC', 'TD', 'TG', 'TH', 'TJ', 'TK', 'TL', 'TM', 'TN', 'TO', 'TR', 'TT',
  'TV', 'TW', 'TZ', 'UA', 'UG', 'US', 'UY', 'UZ', 'VA', 'VC', 'VE', 'VG', 'VI', 'VN', 'VU', 'WF', 'WS', 'YE', 'YT', 'ZA',
  'ZM', 'ZW',
] as const;
export type PhoneCountry = (typeof PHONE_COUNTRIES)[number];

const KNOWN: ReadonlySet<string> = new Set(PHONE_COUNTRIES);

export const isPhoneCountry = (v: string): v is PhoneCountry => KNOWN.has(v);

export const DEFAULT_COUNTRY_INVALID = 'País por defecto inválido: usa un código ISO de dos letras, como CO o MX';

/**
 * "País por defecto" of a Kommo account: an ISO code in any case; null or blank follows the
 * country of the Kommo account.
 */
export const defaultCountrySchema = z
  .union([z.string({ error: DEFAULT_COUNTRY_INVALID }), z.null()], { error: DEFAULT_COUNTRY_INVALID })
  .transform((v) => (v === null ? null : v.trim().toUpperCase() || null))
  .refine((v) => v === null || isPhoneCountry(v), DEFAULT_COUNTRY_INVALID);

/** A country's name in Spanish ("CO" → "Colombia"), or the code when the runtime has no name for it. */
export function countryName(code: string): string {
  try {
    names ??= new Intl.DisplayNames(['es'], { type: 'region' });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
let names: Intl.DisplayNames | undefined;
