// TEMPORARY shim until the explicit-recipients work lands.
import type { Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import type { ActivityActor } from '../activity/activity-log';
import { AppError } from '../../lib/errors';
export async function createExplicitCampaign(_ctx: AppContext, _orgId: number, _input: unknown, _actor?: ActivityActor, _recipients?: unknown[]): Promise<Campaign> {
  throw new AppError(422, 'no disponible');
}
export async function addExplicitRecipients(_ctx: AppContext, _orgId: number, _id: number, _r: unknown[]): Promise<{ added: number; total: number }> {
  throw new AppError(422, 'no disponible');
}
