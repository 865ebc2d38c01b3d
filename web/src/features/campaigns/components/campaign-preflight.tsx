import { downloadExcluded } from '../api/download-excluded';
import { useCampaignPreflight } from '../api/get-preflight';
import { PreflightPanel } from './preflight-panel';

/** The pre-flight of a saved campaign, before its first start; `fixedList`: a follow-up's contact list. */
export function CampaignPreflight({ id, fixedList = false }: { id: number; fixedList?: boolean }) {
  const preflight = useCampaignPreflight(id, true);
  return (
    <PreflightPanel
      data={preflight.data}
      isLoading={preflight.isLoading}
      isFetching={preflight.isFetching}
      error={preflight.error}
      matchedLabel={fixedList ? 'contactos de la lista fija' : undefined}
      onDownloadExcluded={(reason) => downloadExcluded({ campaignId: id }, reason)}
    />
  );
}
