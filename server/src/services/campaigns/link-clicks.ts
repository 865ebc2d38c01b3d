import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { ROUTE_MARKETING } from '../../integrations/whatsapp/marketing-messages';
import { toBsuid } from '../../lib/bsuid';
import { phoneKey } from '../../lib/phone';
import { numberOwners } from '../blacklist/opt-out';

/** Meta reports clicks only for messages sent in the last 7 days. */
const CLICK_WINDOW_DAYS = 7;

export interface ClickEvent {
  phoneNumberId: string;
  /** Meta's `click_id` of the event, when it carries one. */
  clickId?: string | null;
  /** The component clicked (`cta`, `body`…). */
  component?: string | null;
  wabaId: string;
  at: string;
  contextWamid: string | null;
  from: string | null;
  userId: string | null;
}

/**
 * What makes one click event itself, so a retried delivery is recognised: Meta's `click_id` when
 * the event carries one (it names one click), else the message or person it names, its timestamp
 * (whole seconds) and the component clicked. Two real clicks on the same component of one message
 * within the same second without a click_id count as one: Meta's payload cannot tell them apart.
 */
export function clickEventKey(c: Pick<ClickEvent, 'clickId' | 'contextWamid' | 'from' | 'userId' | 'at' | 'component'>): string {
  if (c.clickId) return `click:${c.clickId}`;
  return `at:${c.contextWamid ?? c.from ?? c.userId ?? ''}|${c.at}|${c.component ?? ''}`;
}

/**
 * Link clicks of marketing messages (`user_actions` marketing_messages_link_click): each is
 * attributed to the recipient of the tenant owning the number (verified, its WABA the webhook's
 * `entry.id`): the one whose wamid the click names, else the last one sent to that person by
 * the Marketing Messages API from that number within the 7 days before the click. The
 * recipient's `click_count` grows, its first and latest clicks' times are kept; the campaign's
 * `clicked_count` counts people (once per recipient). A click that names nobody changes no
 * recipient: it is kept in the number's Meta events and the campaign's clicks come from Meta's
 * template analytics (template-analytics.ts). A click already applied (the same event delivered
 * again, `clickEventKey`) changes nothing. Returns how many clicks were attributed.
 */
export async function applyLinkClicks(db: Db, clicks: ClickEvent[]): Promise<number> {
  let attributed = 0;
  for (const c of clicks) {
    const person = c.from ? phoneKey(c.from) : null;
    const bsuid = toBsuid(c.userId);
    if (!c.contextWamid && !person && !bsuid) continue;
    for (const owner of await numberOwners(db, c.phoneNumberId, c.wabaId)) {
      const [hit] = await rowsOf<{ id: number | string; campaign_id: number | string }>(
        db,
        sql`select r.id, r.campaign_id from campaign_recipients r
            join campaigns cp on cp.id = r.campaign_id and cp.user_id = r.user_id
            where r.user_id = ${owner.userId}
              -- The number the person was sent from: its own in a several-number campaign.
              and coalesce(r.whatsapp_account_id, cp.whatsapp_account_id) = ${owner.whatsappAccountId}
              and r.route = ${ROUTE_MARKETING} and r.sent_at is not null
              and (r.wamid = ${c.contextWamid} or r.phone_key = ${person} or r.bsuid = ${bsuid})
              -- Meta's timestamp is in whole seconds and its clock is not ours: a few minutes of slack.
              and r.sent_at <= ${c.at}::timestamptz + interval '5 minutes'
              and r.sent_at > ${c.at}::timestamptz - make_interval(days => ${CLICK_WINDOW_DAYS})
            order by (r.wamid = ${c.contextWamid}) desc nulls last, r.sent_at desc, r.id desc
            limit 1`,
      );
      if (!hit) continue;
      // Meta retries a webhook it thinks was lost: the same click is applied once. The event key
      // goes in first, in the same transaction as the counters; a key already there means the
      // click was applied before, and nothing moves.
      const [fresh] = await rowsOf<{ recipient_id: number | string }>(
        db,
        sql`insert into link_click_events (recipient_id, event_key) values (${Number(hit.id)}, ${clickEventKey(c)})
            on conflict (recipient_id, event_key) do nothing returning recipient_id`,
      );
      if (!fresh) continue;
      attributed++;
      await db.execute(sql`with r as (
          select id, campaign_id, clicked_at is null as first from campaign_recipients where id = ${Number(hit.id)} for update
        ), u as (
          update campaign_recipients x set click_count = x.click_count + 1,
            clicked_at = least(coalesce(x.clicked_at, ${c.at}::timestamptz), ${c.at}::timestamptz),
            last_clicked_at = greatest(coalesce(x.last_clicked_at, ${c.at}::timestamptz), ${c.at}::timestamptz)
          from r where x.id = r.id
          returning x.id
        )
        update campaigns set clicked_count = clicked_count + 1, updated_at = now()
        where id = (select campaign_id from r where first) and exists (select 1 from u)`);
    }
  }
  return attributed;
}
