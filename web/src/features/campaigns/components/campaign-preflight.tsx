import { downloadExcluded } from '../api/download-excluded';
import { useCampaignPreflight } from '../api/get-preflight';
import { PreflightPanel } from './preflight-panel';

/**
 * The pre-flight of a saved campaign, before its first start; `fixedList`: a follow-up's contact
 * list; `explicit`: recipients given through the API (no contacts to list before the start).
 */
export function CampaignPreflight({ id, fixedList = false, explicit = false }: { id: number; fixedList?: boolean; explicit?: boolean }) {
  const preflight = useCampaignPreflight(id, true);
  return (
    <PreflightPanel
      data={preflight.data}
      isLoading={preflight.isLoading}
      isFetching={preflight.isFetching}
      error={preflight.error}
      matchedLabel={explicit ? 'destinatarios de la lista explícita' : fixedList ? 'contactos de la lista fija' : undefined}
      onDownloadExcluded={explicit ? undefined : (reason) => downloadExcluded({ campaignId: id }, reason)}
    />
  );
}
