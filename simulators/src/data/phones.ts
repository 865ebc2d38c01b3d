// Mobile numbers as people type them into a CRM: international and national formats mixed.
// Every format used here resolves to one E.164 number, so duplicates across formats can be
// detected by a correct normaliser (AR needs the mobile '9', MX drops the old '1').
import { digits, pick, type Rng } from './prng';
import type { Country } from './words';

export interface MobileNumber {
  country: Country;
  e164: string;
  /** Area / mobile prefix and subscriber part, used by the formatters. */
  area: string;
  subscriber: string;
}

const AR_AREAS = [['11', 60], ['351', 15], ['341', 15], ['261', 10]] as const;
const MX_AREAS = ['55', '55', '33', '81'] as const;
const CL_MOBILE_PREFIXES = [
  '30', '31', '32', '33', '34', '35', '37', '38', '39', '60', '61', '62', '63', '64', '65', '66', '67', '68',
  '71', '72', '73', '74', '75', '76', '77', '78', '79', '93', '94', '95', '96', '97', '98', '99',
] as const;
const CO_PREFIXES = ['300', '301', '302', '304', '310', '311', '312', '313', '314', '315', '316', '317', '318', '320', '321'] as const;

function arArea(rng: Rng): string {
  let x = rng() * 100;
  for (const [area, w] of AR_AREAS) {
    x -= w;
    if (x < 0) return area;
  }
  return '11';
}

/** Draws a valid mobile number of `country` from `rng`. */
export function mobileNumber(rng: Rng, country: Country): MobileNumber {
  switch (country) {
    case 'AR': {
      const area = arArea(rng);
      const subscriber = digits(rng, 10 - area.length, '23456');
      return { country, area, subscriber, e164: `+549${area}${subscriber}` };
    }
    case 'MX': {
      const area = pick(rng, MX_AREAS);
      const subscriber = digits(rng, 8, '23456789');
      return { country, area, subscriber, e164: `+52${area}${subscriber}` };
    }
    case 'CO': {
      const area = pick(rng, CO_PREFIXES);
      const subscriber = digits(rng, 7, '23456789');
      return { country, area, subscriber, e164: `+57${area}${subscriber}` };
    }
    case 'ES': {
      const area = '6' + digits(rng, 2);
      const subscriber = digits(rng, 6);
      return { country, area, subscriber, e164: `+34${area}${subscriber}` };
    }
    case 'CL': {
      // Only prefixes the numbering plan assigns to mobiles (9 3x, 9 6x, 9 7x, 9 9x).
      const area = '9';
      const subscriber = pick(rng, CL_MOBILE_PREFIXES) + digits(rng, 6);
      return { country, area, subscriber, e164: `+56${area}${subscriber}` };
    }
  }
}

/** Splits s into the trailing four digits and the rest: "23456789" -> ["2345", "6789"]. */
function tail4(s: string): [string, string] {
  return [s.slice(0, -4), s.slice(-4)];
}

type Formatter = (n: MobileNumber) => string;

/** International formats first, then national ones (which need the country to be known). */
const FORMATS: Record<Country, { international: readonly Formatter[]; national: readonly Formatter[] }> = {
  AR: {
    international: [
      (n) => { const [a, b] = tail4(n.subscriber); return `+54 9 ${n.area} ${a}-${b}`; },
      (n) => n.e164,
      (n) => `+54 9 ${n.area} ${n.subscriber}`,
    ],
    national: [
      (n) => { const [a, b] = tail4(n.subscriber); return `0${n.area} 15-${a}-${b}`; },
      (n) => { const [a, b] = tail4(n.subscriber); return `(0${n.area}) 15 ${a}-${b}`; },
    ],
  },
  MX: {
    international: [
      (n) => { const [a, b] = tail4(n.subscriber); return `+52 1 ${n.area} ${a} ${b}`; },
      (n) => { const [a, b] = tail4(n.subscriber); return `+52 ${n.area} ${a} ${b}`; },
      (n) => `+521${n.area}${n.subscriber}`,
    ],
    national: [
      (n) => { const [a, b] = tail4(n.subscriber); return `${n.area} ${a} ${b}`; },
      (n) => { const [a, b] = tail4(n.subscriber); return `(${n.area}) ${a}-${b}`; },
    ],
  },
  CO: {
    international: [
      (n) => `+57 ${n.area} ${n.subscriber.slice(0, 3)} ${n.subscriber.slice(3)}`,
      (n) => n.e164,
      (n) => `(+57) ${n.area}-${n.subscriber.slice(0, 3)}-${n.subscriber.slice(3)}`,
    ],
    national: [
      (n) => `${n.area} ${n.subscriber.slice(0, 3)} ${n.subscriber.slice(3)}`,
      (n) => `${n.area}${n.subscriber}`,
    ],
  },
  ES: {
    international: [
      (n) => { const s = n.area + n.subscriber; return `+34 ${s.slice(0, 3)} ${s.slice(3, 5)} ${s.slice(5, 7)} ${s.slice(7)}`; },
      (n) => n.e164,
      (n) => { const s = n.area + n.subscriber; return `0034 ${s.slice(0, 3)} ${s.slice(3, 6)} ${s.slice(6)}`; },
    ],
    national: [
      (n) => { const s = n.area + n.subscriber; return `${s.slice(0, 3)} ${s.slice(3, 6)} ${s.slice(6)}`; },
      (n) => n.area + n.subscriber,
    ],
  },
  CL: {
    international: [
      (n) => { const [a, b] = tail4(n.subscriber); return `+56 9 ${a} ${b}`; },
      (n) => n.e164,
      (n) => { const [a, b] = tail4(n.subscriber); return `(+56) 9 ${a} ${b}`; },
    ],
    national: [(n) => { const [a, b] = tail4(n.subscriber); return `9 ${a} ${b}`; }],
  },
};

/** Writes `n` the way a person might have typed it: ~60 % international, ~40 % national. */
export function formatMobile(rng: Rng, n: MobileNumber): string {
  const formats = FORMATS[n.country];
  return pick(rng, rng() < 0.6 ? formats.international : formats.national)(n);
}
