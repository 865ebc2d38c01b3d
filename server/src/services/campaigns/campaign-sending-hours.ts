import { eq, sql } from 'drizzle-orm';
import type { Campaign, UpdateCampaignInput } from '@masivo/contract/campaigns';
import type { SendingHoursValue } from '@masivo/contract/sending-hours';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { whatsappAccounts } from '../../db/schema/index';
import { jsonParam, rowsOf } from '../../db/sql';
import { conflict } from '../../lib/errors';
import { campaignDetail, loadCampaignRow } from './campaign-queries';
import type { CampaignRow } from './campaign-view';
import { assignRecipientZones } from './recipient-zones-freeze';

/** Hours set on a campaign whose audience is already frozen: its recipients need their zones. */
export async function zonesForNewHours(db: Db, row: CampaignRow, hours: SendingHoursValue | null | undefined): Promise<void> {
  if (hours && row.audienceFrozenAt) await db.transaction((tx) => assignRecipientZones(tx, row.id, { evenWithoutHours: true }));
}

/**
 * The hours a new campaign starts with: the payload's (null: off), else the WhatsApp account's
 * default (`default_sending_hours`, null: off).
 */
export async function initialSendingHours(db: Db, whatsappAccountId: number, given: SendingHoursValue | null | undefined): Promise<SendingHoursValue | null> {
  if (given !== undefined) return given;
  const [account] = await db
    .select({ hours: whatsappAccounts.defaultSendingHours })
    .from(whatsappAccounts)
    .where(eq(whatsappAccounts.id, whatsappAccountId))
    .limit(1);
  return account?.hours ?? null;
}

/**
 * A sending campaign accepts a change of its hours alone (no other field, no status change):
 * the sender applies it at its next claim, so a campaign waiting outside its hours resumes by
 * itself when they are widened. Returns null when the edit is not such a change.
 */
export async function updateHoursWhileSending(
  ctx: AppContext,
  row: CampaignRow,
  data: UpdateCampaignInput & { sending_hours?: SendingHoursValue | null },
): Promise<Campaign | null> {
  if (row.status !== 'sending' || data.sending_hours === undefined) return null;
  const others = Object.entries(data).filter(([k, v]) => k !== 'sending_hours' && v !== undefined);
  if (others.length) return null;
  // Zones first: the sender may claim as soon as the hours are stored.
  if (data.sending_hours) await zonesForNewHours(ctx.db, row, data.sending_hours);
  // Only the hours change (never the status): the row must still be sending.
  const [changed] = await rowsOf<{ id: number }>(
    ctx.db,
    sql`update campaigns set sending_hours = ${data.sending_hours === null ? sql`null` : jsonParam(data.sending_hours)},
          hours_wait_until = null, updated_at = now()
        where id = ${row.id} and user_id = ${row.userId} and status in ('sending')
        returning id`,
  );
  const updated = changed ? await loadCampaignRow(ctx.db, row.userId, row.id) : null;
  if (!updated) throw conflict('La campaña cambió mientras se editaba: vuelve a cargarla');
  ctx.signals.campaignChanged(row.id);
  return campaignDetail(ctx.db, row.userId, updated);
}
