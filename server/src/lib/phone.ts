import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { maskPhone } from '@masivo/contract/organizations';
import { isBsuid } from './bsuid';

/**
 * Phones are compared as E.164 everywhere (blacklist, dedup, webhooks). Kommo holds
 * whatever the operator typed, so we keep the raw value beside the normalised one.
 *
 * Mobile prefixes that WhatsApp ids drop (AR "9", MX "1") are folded so that
 * `+54 9 11 1234-5678`, `5491112345678` and the wa_id `541112345678` are the same person.
 */
export function toE164(raw: string | null | undefined, defaultCountry?: CountryCode): string | null {
  if (!raw || isBsuid(raw)) return null;
  const cleaned = raw.trim();
  if (cleaned.replace(/\D/g, '').length < 6) return null;
  const withPlus = /^\+/.test(cleaned) || !defaultCountry ? ensurePlus(cleaned) : cleaned;
  const parsed = parsePhoneNumberFromString(dropMexicanMobileOne(withPlus), defaultCountry);
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}

/** Mexico retired the mobile "1" after +52 in 2019; numbers still typed with it mean the same line. */
function dropMexicanMobileOne(v: string): string {
  const digits = v.replace(/\D/g, '');
  return v.startsWith('+') && digits.length === 13 && digits.startsWith('521') ? '+52' + digits.slice(3) : v;
}

function ensurePlus(v: string): string {
  if (v.startsWith('+')) return v;
  if (v.startsWith('00')) return '+' + v.slice(2);
  return '+' + v.replace(/^\D+/, '');
}

/** Canonical key for "same number" checks: digits of the E.164 form with mobile tokens folded. */
export function phoneKey(e164: string): string {
  // A BSUID is its own key (it has letters and a dot, so it never equals a phone's digits).
  if (isBsuid(e164)) return e164.trim();
  const digits = e164.replace(/\D/g, '');
  if (digits.startsWith('549') && digits.length === 13) return '54' + digits.slice(3);
  if (digits.startsWith('521') && digits.length === 13) return '52' + digits.slice(3);
  return digits;
}

/** The key for any input, or null when it is not a valid phone number. */
export function normalizePhoneKey(raw: string | null | undefined, defaultCountry?: CountryCode): string | null {
  const e164 = toE164(raw, defaultCountry);
  return e164 ? phoneKey(e164) : null;
}

/** A Kommo account's country as a region code for national-format numbers, if it is one. */
export function countryCode(value: string | null | undefined): CountryCode | undefined {
  const upper = (value ?? '').trim().toUpperCase();
  return upper && isSupportedCountry(upper) ? (upper as CountryCode) : undefined;
}

/**
 * The region national-format phones of a Kommo account are read in: the operator's default
 * country ("País por defecto"), else the country Kommo reports for the account.
 */
export function accountCountry(a: { defaultCountry?: string | null; country?: string | null }): CountryCode | undefined {
  return countryCode(a.defaultCountry ?? a.country);
}

/**
 * What a Lector sees of a customer's phone: `+5491112345678` → `+54 9 11 •••• 5678`. Formatted
 * first, so the country and area read as people write them; anything that does not parse as a
 * phone (a BSUID, free text) is hidden whole but for its last four characters.
 */
export function maskedPhone(value: string): string {
  const parsed = isBsuid(value) ? undefined : parsePhoneNumberFromString(value.startsWith('+') ? value : ensurePlus(value));
  if (parsed?.isValid()) return maskPhone(parsed.formatInternational());
  const text = value.trim();
  return text.length > 4 ? `•••• ${text.slice(-4)}` : '••••';
}
