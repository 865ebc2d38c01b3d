import { HEADER_MEDIA_KEY, MEDIA_RULES, templateVariableSlots, type MediaHeaderFormat } from '@masivo/contract/variables';
import { MediaFetchError, safeFetchMedia } from '../../integrations/media/safe-fetch';
import { MediaUploadError, uploadMedia } from '../../integrations/whatsapp/upload-media';
import { AppError } from '../../lib/errors';
import { documentFilename, isMediaId } from '../../services/variables/render';
import type { ActiveCampaign } from './sender-campaigns';

export interface MediaAccount {
  graphUrl: string;
  phoneNumberId: string;
  accessToken: string;
  allowPrivateHosts: boolean;
}

/**
 * A campaign's fixed header media (a static `header_media` link) is downloaded and uploaded
 * to `/{phone-number-id}/media` once, and every message carries the id. A failure is an
 * AppError whose Spanish message becomes the campaign's pause reason.
 */
export class CampaignMedia {
  /** `${campaignId} ${link}` → media id: a campaign re-read keeps its upload. */
  private readonly ids = new Map<string, string>();

  constructor(private readonly account: () => MediaAccount) {}

  async headerMediaId(campaign: Pick<ActiveCampaign, 'id' | 'template' | 'mappings'>): Promise<string | null> {
    const slot = templateVariableSlots(campaign.template.components, campaign.template.parameterFormat).find((s) => s.kind === 'media');
    const mapping = campaign.mappings.find((m) => m.templateVariable === HEADER_MEDIA_KEY);
    if (!slot || !mapping || mapping.sourceType !== 'static') return null;
    const value = mapping.defaultValue.trim();
    if (isMediaId(value)) return value;
    const key = `${campaign.id} ${value}`;
    const known = this.ids.get(key);
    if (known) return known;
    const id = await this.upload(value, slot.format as MediaHeaderFormat);
    this.ids.set(key, id);
    return id;
  }

  forget(campaignId: number): void {
    for (const key of this.ids.keys()) if (key.startsWith(`${campaignId} `)) this.ids.delete(key);
  }

  private async upload(link: string, format: MediaHeaderFormat): Promise<string> {
    const rules = MEDIA_RULES[format];
    const account = this.account();
    try {
      const fetched = await safeFetchMedia(link, { allowPrivate: account.allowPrivateHosts, maxBytes: rules.maxBytes, readBody: true });
      if (fetched.size > rules.maxBytes) throw new MediaFetchError(`el archivo supera el límite de Meta para ${rules.label}`);
      if (!rules.types.includes(fetched.contentType)) {
        throw new MediaFetchError(`el enlace entrega ${fetched.contentType || 'un tipo desconocido'} y el encabezado espera ${rules.label}`);
      }
      return await uploadMedia({
        graphUrl: account.graphUrl,
        phoneNumberId: account.phoneNumberId,
        accessToken: account.accessToken,
        bytes: fetched.bytes,
        mime: fetched.contentType,
        filename: format === 'DOCUMENT' ? documentFilename(link) : `encabezado.${fetched.contentType.split('/')[1]}`,
      });
    } catch (err) {
      if (err instanceof MediaFetchError || err instanceof MediaUploadError) {
        const why = err.message.charAt(0).toLowerCase() + err.message.slice(1);
        throw new AppError(400, `No se pudo subir el archivo del encabezado a WhatsApp: ${why}`);
      }
      throw err;
    }
  }
}
