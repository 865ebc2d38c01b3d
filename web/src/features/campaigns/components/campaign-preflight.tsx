import { useCampaignPreflight } from '../api/get-preflight';
import { PreflightPanel } from './preflight-panel';

/** The pre-flight of a saved campaign, before its first start (issue 13). */
export function CampaignPreflight({ id }: { id: number }) {
  const preflight = useCampaignPreflight(id, true);
  return <PreflightPanel data={preflight.data} isLoading={preflight.isLoading} isFetching={preflight.isFetching} error={preflight.error} />;
}
