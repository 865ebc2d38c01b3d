import type { ExclusionReason, PreflightRequest } from '@masivo/contract/preflight';
import { request } from '@/lib/api-client';
import { saveResponseAsFile } from '@/lib/download';

/** Whose pre-flight: a saved campaign, or the one being built (its create payload). */
export type ExcludedTarget = { campaignId: number } | { draft: PreflightRequest };

/** Downloads the contacts behind one exclusion reason as CSV (name, phone as in Kommo, reason). */
export async function downloadExcluded(target: ExcludedTarget, reason: ExclusionReason): Promise<void> {
  const query = { reason, format: 'csv' };
  const res =
    'campaignId' in target
      ? await request('GET', `/campaigns/${target.campaignId}/preflight/excluded`, undefined, query)
      : await request('POST', '/campaigns/preflight/excluded', target.draft, query);
  await saveResponseAsFile(res, `excluidos-${reason}.csv`);
}
