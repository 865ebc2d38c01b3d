import type { FastifyInstance } from 'fastify';
import { can } from '@masivo/contract/organizations';
import { maskedPhone } from '../lib/phone';

/** The customer-phone fields of the API's answers (contacts, blacklist, recipients, replies). */
const PHONE_FIELDS = new Set(['phone', 'phone_raw']);

/** Masks in place; answers are fresh objects built per request, never shared state. */
function maskTree(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
      continue;
    }
    const record = value as Record<string, unknown>;
    for (const [key, v] of Object.entries(record)) {
      if (PHONE_FIELDS.has(key) && typeof v === 'string' && v) record[key] = maskedPhone(v);
      else if (v !== null && typeof v === 'object') stack.push(v);
    }
  }
}

/**
 * A member without `contacts.phones` (the Lector) sees customers' phones masked in every JSON
 * answer, decided here once rather than in each feature; exports with phones need
 * `contacts.export`, which that role never has.
 */
export function registerPhoneMasking(app: FastifyInstance) {
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (!request.session || can(request.role, 'contacts.phones')) return payload;
    maskTree(payload);
    return payload;
  });
}
