/**
 * The campaign operations the HTTP routes call. Each one checks ownership first (a foreign
 * id is a 404 'Campaña no encontrada') and answers state conflicts with a Spanish 409.
 */
export { listCampaigns, getCampaign } from './campaign-queries';
export { createCampaign } from './create-campaign';
export { updateCampaign } from './update-campaign';
export { deleteCampaign } from './delete-campaign';
export { startCampaign } from './start-campaign';
export { pauseCampaign } from './pause-campaign';
export { retryFailed, retryUnknown } from './retry-failed';
export { listMessages } from './campaign-messages';
