import { and, desc, eq } from 'drizzle-orm';
import type { Campaign } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { campaigns } from '../../db/schema/index';
import { notFound } from '../../lib/errors';
import { toCampaign, type CampaignRow } from './campaign-view';

export const CAMPAIGN_NOT_FOUND = 'Campaña no encontrada';

/** The user's campaigns, newest first. */
export async function listCampaigns(db: Db, userId: number): Promise<Campaign[]> {
  const rows = await db
    .select()
    .from(campaigns)
    .where(eq(campaigns.userId, userId))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
  return rows.map(toCampaign);
}

export async function getCampaign(db: Db, userId: number, id: number): Promise<Campaign> {
  return toCampaign(await loadCampaignRow(db, userId, id));
}

/** A campaign of this user, or 404: a foreign id is indistinguishable from a missing one. */
export async function loadCampaignRow(db: Db, userId: number, id: number): Promise<CampaignRow> {
  const [row] = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.userId, userId)))
    .limit(1);
  if (!row) throw notFound(CAMPAIGN_NOT_FOUND);
  return row;
}
