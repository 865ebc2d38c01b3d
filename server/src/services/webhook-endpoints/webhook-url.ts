import { isIP } from 'node:net';
import { isBlockedAddress, systemResolver, type HostResolver } from '../../lib/blocked-address';
import { unprocessable } from '../../lib/errors';

export const PRIVATE_ADDRESS = 'La URL apunta a una dirección privada, local o reservada: usa una URL pública';

/**
 * A webhook URL the console may post to: https (plain http only with
 * WEBHOOKS_ALLOW_PRIVATE_HOSTS=1, for tests), no credentials, and a host whose every address
 * is public (private, loopback, link-local, unique-local IPv6 and IPv4-mapped loopback are
 * refused). Checked when an endpoint is saved; every delivery checks again at connect time
 * (a name may resolve elsewhere later). Returns the normalised URL, or throws a Spanish 422.
 */
export async function checkWebhookUrl(raw: string, opts: { allowPrivate: boolean; resolve?: HostResolver }): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw unprocessable('La URL no es válida');
  }
  if (url.protocol !== 'https:' && !(opts.allowPrivate && url.protocol === 'http:')) {
    throw unprocessable('La URL debe usar https://');
  }
  if (url.username || url.password) throw unprocessable('La URL no puede llevar usuario ni contraseña');
  if (url.hash) url.hash = '';
  if (opts.allowPrivate) return url.toString();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) throw unprocessable(PRIVATE_ADDRESS);
  if (isIP(host)) {
    if (isBlockedAddress(host)) throw unprocessable(PRIVATE_ADDRESS);
    return url.toString();
  }
  let addresses: string[];
  try {
    addresses = (await (opts.resolve ?? systemResolver)(host)).map((a) => a.address);
  } catch {
    throw unprocessable(`No se pudo resolver el dominio ${host.slice(0, 100)}`);
  }
  if (!addresses.length || addresses.some(isBlockedAddress)) throw unprocessable(PRIVATE_ADDRESS);
  return url.toString();
}
