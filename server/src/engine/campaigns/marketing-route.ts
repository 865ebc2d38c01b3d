import {
  marketingRefusal,
  ROUTE_MARKETING,
  ROUTE_MESSAGES,
  type SendRoute,
} from '../../integrations/whatsapp/marketing-messages';
import type { SendingAccount } from '../../services/whatsapp-accounts/account-secrets';
import type { ActiveCampaign } from './sender-campaigns';

/**
 * The route of each template message of one number (Meta's "route template messages by
 * category"): a template whose LATEST category is MARKETING goes by /marketing_messages when the
 * number's portfolio is onboarded and Meta has not refused the route since; everything else by
 * /messages. Decided from what the sender already holds in memory (the account it re-reads every
 * few seconds, the campaign it re-reads on refresh): no query per message.
 */
export class MarketingRouter {
  /** Template id → time (performance.now) until which it goes by /messages (syncing, category mismatch). */
  private readonly templateWaits = new Map<number, number>();
  /** Set at a refusal of the route, before the account row says so: the next send already avoids it. */
  private closedHere = false;

  route(account: SendingAccount, campaign: ActiveCampaign): SendRoute {
    if (campaign.category !== 'MARKETING') return ROUTE_MESSAGES;
    if (!account.marketingRoute || this.closedHere) return ROUTE_MESSAGES;
    const wait = this.templateWaits.get(campaign.templateId);
    if (wait !== undefined) {
      if (wait > performance.now()) return ROUTE_MESSAGES;
      this.templateWaits.delete(campaign.templateId);
    }
    return ROUTE_MARKETING;
  }

  /** A fresh account read: a route Meta reopened (terms signed, refresh) is used again. */
  accountRead(account: SendingAccount) {
    if (!account.marketingRoute) return;
    // The row closed by our own refusal stays closed (marketingRoute false) until Meta reopens it.
    this.closedHere = false;
  }

  /**
   * What to do after Meta refused a send on the marketing route: null when the error is not a
   * refusal of the route (classified as any other). Otherwise the message goes again by
   * /messages, and `closeNumber` says the whole number moves there.
   */
  refused(campaign: ActiveCampaign, code: number | null, message: string): { closeNumber: string | null } | null {
    const refusal = marketingRefusal(code, message);
    if (!refusal) return null;
    if (refusal.kind === 'route_unavailable') {
      this.closedHere = true;
      return { closeNumber: refusal.reason };
    }
    if (refusal.kind === 'template') this.templateWaits.set(campaign.templateId, performance.now() + refusal.waitMs);
    return { closeNumber: null };
  }
}
