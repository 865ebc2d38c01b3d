import type { Config } from '../../config';
import type { Database } from '../../db/client';
import { createKommoClient, type KommoClient } from './client';
import { createKommoHookApi, type KommoHookApi } from './hook-api';
import { createSharedLimiterPool, limiterFor } from './rate-limiter';
import { createKommoWriteApi, type KommoWriteApi } from './write-api';
import { createKommoLeadLookup, type KommoLeadLookup } from './lead-lookup';

export interface KommoClients {
  /** The sync runner's: retries patiently. */
  sync: KommoClient;
  /** An operator waiting on a form ('Obtener Campos') gets an answer within seconds instead. */
  interactive: KommoClient;
  /** The write-back worker's (notes, tags, leads): patient like the sync, through the same limiter. */
  writeback: KommoWriteApi;
  /** Forms that read pipelines: quick like `interactive`. */
  interactiveWrite: KommoWriteApi;
  /** Webhook subscriptions, the events log and changed contacts (the catch-up): patient, 'normal' turn. */
  hooks: KommoHookApi;
  /** Automatic campaigns' lead look-ups at the due time: patient, and first in line on the account's limiter in this process. */
  leads: KommoLeadLookup;
}

/**
 * The process's Kommo clients for a configuration (KOMMO_BASE_URL, KOMMO_RPS); all share the
 * per-account rate limiter. On PostgreSQL that limiter is the database's, shared with every other
 * process of the deployment; the embedded database has one process, which keeps its own.
 */
export function createKommoClients(config: Pick<Config, 'KOMMO_BASE_URL' | 'KOMMO_RPS'>, database?: Pick<Database, 'db' | 'kind'>): KommoClients {
  const limiters = database?.kind === 'postgres' ? createSharedLimiterPool(database.db).get : limiterFor;
  const base = { baseUrlTemplate: config.KOMMO_BASE_URL, rps: config.KOMMO_RPS, limiters };
  const interactive = createKommoClient({ ...base, retries: 2, backoffMs: 300, timeoutMs: 15_000, maxRetryAfterMs: 5_000, max429s: 3 });
  return {
    sync: createKommoClient(base),
    interactive,
    writeback: createKommoWriteApi(createKommoClient(base)),
    interactiveWrite: createKommoWriteApi(interactive),
    hooks: createKommoHookApi(createKommoClient(base)),
    leads: leadLookup(createKommoClient({ ...base, priority: 'high' })),
  };
}

function leadLookup(client: ReturnType<typeof createKommoClient>): KommoLeadLookup {
  return createKommoLeadLookup(client, (creds, ids, signal) => client.contactsByIds(creds, ids, signal));
}
