import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { numberOwners, personOf } from '../blacklist/opt-out';
import type { InboundText } from './inbound-text';
import type { ReplyEvent } from '../webhook-endpoints/outbox';

/** A reply is attributed by time only to a campaign message sent at most this long before it. */
export const ATTRIBUTION_WINDOW_HOURS = 72;

/** Types whose body is a tapped button (a quick reply, or an interactive button/list reply). */
export const TAP_TYPES = ['button', 'interactive'] as const;

/** How a message without text shows as a recipient's latest reply. */
const MEDIA_LABELS: Record<string, string> = {
  image: '[Imagen]',
  audio: '[Audio]',
  voice: '[Audio]',
  video: '[Video]',
  document: '[Documento]',
  sticker: '[Sticker]',
  location: '[Ubicación]',
  contacts: '[Contacto]',
  reaction: '[Reacción]',
  order: '[Pedido]',
};

/**
 * Records inbound messages (replies, taps, any text) for the tenant owning the number written to (verified
 * account, the number's WABA equal to the webhook's `entry.id`, as for opt-outs), each kept once
 * per (account, wamid): a webhook delivered twice inserts and counts nothing the second time.
 * Each new message is attributed to a campaign recipient of that tenant and account: the one
 * whose wamid is `context.id`, else the last campaign message sent to that person (phone key,
 * else BSUID) by the same account within 72 h before the message. The recipient's reply columns
 * are then recomputed from its stored messages, so reordered webhooks leave `replied_at` = the
 * earliest, `last_reply` = the newest by Meta's timestamp and `button_tapped` = the first tap.
 * Returns how many messages were recorded; each new one is also pushed to `recorded` when given
 * (the inbox announces them as `reply.received`).
 */
export async function recordInbound(db: Db, messages: InboundText[], now: Date = new Date(), recorded?: ReplyEvent[]): Promise<number> {
  let count = 0;
  const ownersOf = new Map<string, Array<{ userId: number; whatsappAccountId: number }>>();
  for (const m of messages) {
    if (!m.wamid) continue;
    const person = personOf(m.from, m.userId);
    if (!person) continue;
    const sentAt = m.sentAt ?? now;
    const fromPhoneKey = person.bsuid === person.key ? null : person.key;
    const numberKey = `${m.phoneNumberId}|${m.wabaId}`;
    let owners = ownersOf.get(numberKey);
    if (!owners) {
      owners = await numberOwners(db, m.phoneNumberId, m.wabaId);
      ownersOf.set(numberKey, owners);
    }
    for (const owner of owners) {
      // Attributed before the insert, so a new message is written once with its recipient.
      const target = await attribute(db, owner, { contextWamid: m.contextWamid ?? null, phoneKey: fromPhoneKey, bsuid: person.bsuid, sentAt });
      const [row] = await rowsOf<{ id: number | string }>(
        db,
        sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, from_phone_key, from_bsuid, type, body,
                                          button_payload, context_wamid, sent_at, campaign_id, recipient_id)
            values (${owner.userId}, ${owner.whatsappAccountId}, ${m.wamid}, ${fromPhoneKey}, ${person.bsuid}, ${m.type ?? 'text'},
                    ${m.body ?? null}, ${m.buttonPayload}, ${m.contextWamid ?? null}, ${sentAt.toISOString()}::timestamptz,
                    ${target?.campaignId ?? null}, ${target?.recipientId ?? null})
            on conflict (whatsapp_account_id, wamid) do nothing
            returning id`,
      );
      if (!row) continue;
      count++;
      if (target) await refreshRecipientReplies(db, target);
      recorded?.push({
        orgId: owner.userId,
        messageId: Number(row.id),
        campaignId: target?.campaignId ?? null,
        recipientId: target?.recipientId ?? null,
        type: m.type ?? 'text',
        button: m.type === 'button' || m.type === 'interactive' ? { text: m.body ?? null, payload: m.buttonPayload } : null,
        at: sentAt.toISOString(),
      });
    }
  }
  return count;
}

interface Target {
  campaignId: number;
  recipientId: number;
}

async function attribute(
  db: Db,
  owner: { userId: number; whatsappAccountId: number },
  m: { contextWamid: string | null; phoneKey: string | null; bsuid: string | null; sentAt: Date },
): Promise<Target | null> {
  const found = (rows: Array<{ id: number | string; campaign_id: number | string }>) =>
    rows[0] ? { recipientId: Number(rows[0].id), campaignId: Number(rows[0].campaign_id) } : null;
  if (m.contextWamid) {
    const byContext = found(
      await rowsOf(
        db,
        sql`select r.id, r.campaign_id from campaign_recipients r
            join campaigns c on c.id = r.campaign_id and c.user_id = r.user_id
            where r.wamid = ${m.contextWamid} and r.user_id = ${owner.userId}
              and coalesce(r.whatsapp_account_id, c.whatsapp_account_id) = ${owner.whatsappAccountId}
            limit 1`,
      ),
    );
    if (byContext) return byContext;
  }
  const at = m.sentAt.toISOString();
  const lastSent = (column: 'phone_key' | 'bsuid', key: string) =>
    rowsOf<{ id: number | string; campaign_id: number | string }>(
      db,
      sql`select r.id, r.campaign_id from campaign_recipients r
          join campaigns c on c.id = r.campaign_id and c.user_id = r.user_id
          where r.user_id = ${owner.userId} and ${sql.raw(`r.${column}`)} = ${key}
            and r.sent_at is not null and r.sent_at <= ${at}::timestamptz
            and r.sent_at > ${at}::timestamptz - make_interval(hours => ${ATTRIBUTION_WINDOW_HOURS})
            and coalesce(r.whatsapp_account_id, c.whatsapp_account_id) = ${owner.whatsappAccountId}
          order by r.sent_at desc, r.id desc
          limit 1`,
    );
  // A username user's recipient row may be keyed by the BSUID itself.
  for (const [column, key] of [
    ['phone_key', m.phoneKey],
    ['bsuid', m.bsuid],
    ['phone_key', m.bsuid],
  ] as const) {
    if (!key) continue;
    const hit = found(await lastSent(column, key));
    if (hit) return hit;
  }
  return null;
}

/**
 * The recipient's reply columns from its stored messages (idempotent, order-independent), and
 * the campaign's `replied_count` raised once when the recipient answers for the first time.
 * The recipient row is locked first so two batches answering one person queue.
 */
async function refreshRecipientReplies(db: Db, t: Target): Promise<void> {
  const [before] = await rowsOf<{ replied: boolean }>(
    db,
    sql`select replied_at is not null as replied from campaign_recipients where id = ${t.recipientId} for update`,
  );
  if (!before) return;
  // One statement after the lock (a new snapshot: it sees what a concurrent batch committed).
  const mine = sql`m.campaign_id = ${t.campaignId} and m.recipient_id = ${t.recipientId}`;
  // The campaign's counter rises in the same statement, once: when this recipient had not replied yet.
  await db.execute(sql`with updated as (update campaign_recipients r
      set replied_at = a.first_at, reply_count = a.n,
          last_reply = left(coalesce(a.last_body, ${jsonParam(MEDIA_LABELS)}::jsonb ->> a.last_type, '[' || a.last_type || ']'), 1000),
          button_tapped = left(a.first_tap, 200)
      from (select count(*)::int as n, min(m.sent_at) as first_at,
              (select m.body from inbound_messages m where ${mine} and m.type in ('button', 'interactive') and m.body is not null
                order by m.sent_at, m.id limit 1) as first_tap,
              (select m.type from inbound_messages m where ${mine} order by m.sent_at desc, m.id desc limit 1) as last_type,
              (select m.body from inbound_messages m where ${mine} order by m.sent_at desc, m.id desc limit 1) as last_body
            from inbound_messages m where ${mine}) a
      where r.id = ${t.recipientId} and a.n > 0
      returning r.id)
    update campaigns set replied_count = replied_count + 1
      where id = ${t.campaignId} and ${!before.replied} and exists (select 1 from updated)`);
}
