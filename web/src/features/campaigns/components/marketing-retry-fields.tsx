import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import { Input } from '@/components/ui/field';
import type { CampaignFormInput } from './campaign-form';

/**
 * Meta's per-user marketing limit (131049) defers a recipient: how many more attempts (each
 * at least 24 h after the last) and within how many hours of the first refusal.
 */
export function MarketingRetryFields({
  register,
  errors,
}: {
  register: UseFormRegister<CampaignFormInput>;
  errors: FieldErrors<CampaignFormInput>;
}) {
  return (
    <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
      <Input
        label="Reintentos de diferidos"
        id="deferred_max_attempts"
        type="number"
        min={0}
        max={5}
        hint="Si Meta difiere un mensaje por su límite de marketing, se reintenta a las 24 h como pronto."
        error={errors.deferred_max_attempts?.message}
        {...register('deferred_max_attempts')}
      />
      <Input
        label="Ventana de reintentos (horas)"
        id="deferred_window_hours"
        type="number"
        min={24}
        max={168}
        hint="Pasada la ventana o los reintentos, el destinatario queda como fallido con el motivo."
        error={errors.deferred_window_hours?.message}
        {...register('deferred_window_hours')}
      />
    </div>
  );
}
