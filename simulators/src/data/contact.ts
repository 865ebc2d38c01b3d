// Deterministic contacts: contactAt(seed, i) depends only on (seed, i), costs O(1) and keeps no
// state, so a simulator can serve a million contacts without storing them.
import { hashSeed, mulberry32, pick, pickWeighted, type Rng } from './prng';
import { formatMobile, mobileNumber } from './phones';
import {
  CITIES, COUNTRY_WEIGHTS, EMAIL_DOMAINS, FEMALE_NAMES, INVALID_PHONES, LAST_NAMES, MALE_NAMES,
  ORIGINS, PLAN_WEIGHTS, TAG_POOL, type Country, type Plan,
} from './words';

export const FIELD_NAMES = ['Ciudad', 'Plan', 'Fecha de nacimiento', 'Origen'] as ['Ciudad', 'Plan', 'Fecha de nacimiento', 'Origen'];
export type FieldName = (typeof FIELD_NAMES)[number];

export type PhoneKind = 'valid' | 'invalid' | 'duplicate' | 'none';
export type PhoneEnumCode = 'MOB' | 'WORK' | 'HOME';

export interface GeneratedContact {
  index: number;
  name: string;
  firstName: string;
  lastName: string;
  country: Country;
  /** Raw values as typed into the CRM; phones[0] is the main one. Empty when there is no phone. */
  phones: Array<{ value: string; enumCode: PhoneEnumCode }>;
  phoneKind: PhoneKind;
  /** The E.164 number phones[0] stands for (valid and duplicate kinds), else null. */
  e164: string | null;
  email: string | null;
  tags: string[];
  custom: {
    Ciudad: string | null;
    Plan: Plan | null;
    /** YYYY-MM-DD */
    'Fecha de nacimiento': string | null;
    Origen: string | null;
  };
}

// Independent random streams per contact, so the shape of contact j can be read cheaply while
// generating contact i (needed for duplicated phones).
const SALT_SHAPE = 1;
const SALT_PHONE = 2;
const SALT_TAGS = 3;
const SALT_BODY = 4;

interface Shape {
  bare: boolean; // no phone, no email, no custom field at all -> custom_fields_values: null
  country: Country;
  phoneKind: PhoneKind;
}

function shapeOf(seed: number, index: number): Shape {
  const rng = mulberry32(hashSeed(seed, index, SALT_SHAPE));
  const bare = rng() < 0.02;
  const country = pickWeighted(rng, COUNTRY_WEIGHTS);
  const p = rng();
  const phoneKind: PhoneKind = bare ? 'none' : p < 0.03 ? 'invalid' : p < 0.04 ? 'duplicate' : p < 0.08 ? 'none' : 'valid';
  return { bare, country, phoneKind };
}

function ownMobile(seed: number, index: number, country: Country) {
  return mobileNumber(mulberry32(hashSeed(seed, index, SALT_PHONE)), country);
}

/** An earlier contact whose phone is valid, or null when none is found nearby. */
function duplicateSource(seed: number, index: number, rng: Rng): number | null {
  for (let attempt = 0; attempt < 8 && index > 0; attempt++) {
    const j = index - 1 - Math.floor(rng() * Math.min(index, 5000));
    if (shapeOf(seed, j).phoneKind === 'valid') return j;
  }
  return null;
}

const tagCache = new Map<number, string[]>();

/** The 20–50 tags a seed uses, in a fixed order (earlier tags are more common). */
export function tagsForSeed(seed: number): string[] {
  return [...seedTags(seed)];
}

/** Cached and shared: never hand this array to callers that might change it. */
function seedTags(seed: number): readonly string[] {
  let tags = tagCache.get(seed);
  if (tags) return tags;
  const rng = mulberry32(hashSeed(seed, 0, SALT_TAGS));
  const pool: string[] = [...TAG_POOL];
  const count = 20 + Math.floor(rng() * 31);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rng() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  tags = pool.slice(0, count);
  if (tagCache.size > 64) tagCache.clear(); // memo only; bounded so it never grows with use
  tagCache.set(seed, tags);
  return tags;
}

const ACCENTS = /[\u0300-\u036f]/g;
function slug(s: string): string {
  return s.normalize('NFD').replace(ACCENTS, '').toLowerCase().replace(/[^a-z]+/g, '');
}

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function birthDate(rng: Rng): string {
  const year = 1950 + Math.floor(rng() * 57);
  const month = 1 + Math.floor(rng() * 12);
  const day = 1 + Math.floor(rng() * 28);
  return `${year}-${twoDigits(month)}-${twoDigits(day)}`;
}

function contactTags(rng: Rng, tagList: readonly string[]): string[] {
  const x = rng();
  const count = x < 0.3 ? 0 : x < 0.6 ? 1 : x < 0.8 ? 2 : x < 0.92 ? 3 : 4;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    // Squaring skews toward the first tags, so some tags are common and others rare.
    const r = rng();
    const tag = tagList[Math.floor(r * r * tagList.length)];
    if (!out.includes(tag)) out.push(tag);
  }
  return out;
}

export function contactAt(seed: number, index: number): GeneratedContact {
  const shape = shapeOf(seed, index);
  const rng = mulberry32(hashSeed(seed, index, SALT_BODY));

  const female = rng() < 0.5;
  const first = pick(rng, female ? FEMALE_NAMES : MALE_NAMES);
  const last = rng() < 0.3 ? `${pick(rng, LAST_NAMES)} ${pick(rng, LAST_NAMES)}` : pick(rng, LAST_NAMES);
  // Some contacts were created with only the full name filled in (forms, imports).
  const nameOnly = rng() < 0.04;
  const firstName = nameOnly ? '' : first;
  const lastName = nameOnly ? '' : last;
  const name = `${first} ${last}`;

  const phones: GeneratedContact['phones'] = [];
  let e164: string | null = null;
  let phoneKind = shape.phoneKind;
  let country = shape.country;
  if (phoneKind === 'duplicate') {
    const source = duplicateSource(seed, index, rng);
    if (source === null) phoneKind = 'valid';
    else {
      // The duplicate lives in the source's country, so its national formats mean the same number.
      country = shapeOf(seed, source).country;
      const m = ownMobile(seed, source, country);
      phones.push({ value: formatMobile(rng, m), enumCode: 'MOB' });
      e164 = m.e164;
    }
  }
  if (phoneKind === 'valid') {
    const m = ownMobile(seed, index, country);
    phones.push({ value: formatMobile(rng, m), enumCode: 'MOB' });
    e164 = m.e164;
  } else if (phoneKind === 'invalid') {
    phones.push({ value: pick(rng, INVALID_PHONES), enumCode: 'MOB' });
  }
  if (phones.length > 0 && rng() < 0.08) {
    phones.push({ value: formatMobile(rng, mobileNumber(rng, country)), enumCode: rng() < 0.5 ? 'WORK' : 'HOME' });
  }

  let email: string | null = null;
  if (!shape.bare && rng() < 0.75) {
    const sep = pick(rng, ['.', '_', '', '.']);
    const suffix = rng() < 0.5 ? String(Math.floor(rng() * 1000)) : '';
    email = `${slug(first)}${sep}${slug(last.split(' ')[0])}${suffix}@${pickWeighted(rng, EMAIL_DOMAINS)}`;
  }

  const tags = contactTags(rng, seedTags(seed));

  const custom: GeneratedContact['custom'] = { Ciudad: null, Plan: null, 'Fecha de nacimiento': null, Origen: null };
  if (!shape.bare) {
    if (rng() < 0.85) custom.Ciudad = pick(rng, CITIES[country]);
    if (rng() < 0.7) custom.Plan = pickWeighted(rng, PLAN_WEIGHTS);
    if (rng() < 0.6) custom['Fecha de nacimiento'] = birthDate(rng);
    if (rng() < 0.8) custom.Origen = pick(rng, ORIGINS);
  }

  return { index, name, firstName, lastName, country, phones, phoneKind, e164, email, tags, custom };
}

export function* generateContacts(seed: number, count: number): Generator<GeneratedContact> {
  for (let i = 0; i < count; i++) yield contactAt(seed, i);
}
