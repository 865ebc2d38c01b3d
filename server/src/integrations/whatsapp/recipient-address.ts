import { isBsuid } from '../../lib/bsuid';

/**
 * How a send names its person: `to` with the phone, or `recipient` with the business-scoped
 * user id when that is all we know (Meta's send reference; authentication templates cannot go
 * to a BSUID, and campaigns never send those).
 */
export function addressOf(to: string): { to: string } | { recipient: string } {
  return isBsuid(to) ? { recipient: to.trim() } : { to };
}
