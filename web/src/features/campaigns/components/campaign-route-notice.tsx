import { expiryLabel } from '@masivo/contract/marketing-messages';
import type { Template } from '@masivo/contract/templates';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { Clock, Megaphone } from 'lucide-react';

/**
 * Which route the campaign's messages take (Meta's Marketing Messages API for a MARKETING
 * template of an onboarded number, else Cloud API) and, on the marketing route, «Vence en …»:
 * the template's time-to-live.
 */
export function CampaignRouteNotice({ template, account }: { template: Pick<Template, 'category' | 'message_send_ttl_seconds'>; account: WhatsAppAccount | undefined }) {
  const marketing = template.category.toLowerCase() === 'marketing';
  if (!marketing) return null;
  const state = account?.marketing_messages;
  const open = state?.state === 'onboarded';
  const expiry = expiryLabel(template.message_send_ttl_seconds ?? null, open ? 'marketing' : 'other');
  return (
    <div role="status" data-testid="campaign-route" className="space-y-1 rounded-md border border-blue-200 bg-blue-50 px-4 py-3 text-sm text-blue-900">
      <p className="flex items-center gap-2">
        <Megaphone className="h-4 w-4 shrink-0" aria-hidden />
        {open
          ? 'Se enviará por la API de marketing de Meta (entrega optimizada, vencimiento y clics).'
          : `Se enviará por Cloud API: ${state ? state.label.replace(/^API de marketing: /, '').toLowerCase() : 'la API de marketing no fue consultada'}.`}
      </p>
      {expiry && (
        <p className="flex items-center gap-2 font-medium">
          <Clock className="h-4 w-4 shrink-0" aria-hidden /> {expiry}
        </p>
      )}
    </div>
  );
}
