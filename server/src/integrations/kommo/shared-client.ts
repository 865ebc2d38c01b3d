import type { Config } from '../../config';
import { createKommoClient, type KommoClient } from './client';

/**
 * Process-wide Kommo clients for a configuration (KOMMO_BASE_URL, KOMMO_RPS). Both share the
 * per-account rate limiter. The sync retries patiently; an operator waiting on a form
 * ('Obtener Campos') gets an answer within seconds instead.
 */
const clients = new WeakMap<Config, { sync: KommoClient; interactive: KommoClient }>();

export function kommoClientFor(config: Config, use: 'sync' | 'interactive' = 'sync'): KommoClient {
  let pair = clients.get(config);
  if (!pair) {
    const base = { baseUrlTemplate: config.KOMMO_BASE_URL, rps: config.KOMMO_RPS };
    pair = {
      sync: createKommoClient(base),
      interactive: createKommoClient({ ...base, retries: 2, backoffMs: 300, timeoutMs: 15_000, maxRetryAfterMs: 5_000, max429s: 3 }),
    };
    clients.set(config, pair);
  }
  return pair[use];
}
