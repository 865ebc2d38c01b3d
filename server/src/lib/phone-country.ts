import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { isBsuid } from './bsuid';

/**
 * The ISO country of an E.164 phone ("+5491112345678" → "AR"), or null when it is not a valid
 * phone (a BSUID, a typo). Meta prices a message by the recipient's country calling code; for
 * codes shared by several countries (+1) the area code decides, as libphonenumber knows it.
 */
export function countryOfPhone(e164: string): string | null {
  if (!e164 || isBsuid(e164)) return null;
  const parsed = parsePhoneNumberFromString(e164.startsWith('+') ? e164 : `+${e164}`);
  return parsed?.country ?? null;
}
