import type { KommoAccount, PhoneRecheck } from '@masivo/contract/kommo-accounts';
import { countryName, PHONE_COUNTRIES } from '@masivo/contract/phone-countries';
import { useMemo, useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Select } from '@/components/ui/field';
import { ProgressBar } from '@/components/ui/progress-bar';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useUpdateDefaultCountry } from '../api/kommo-account-mutations';

/** Every country with its Spanish name, in Spanish alphabetical order. */
function useCountryOptions() {
  return useMemo(
    () => PHONE_COUNTRIES.map((code) => ({ code, name: countryName(code) })).sort((a, b) => a.name.localeCompare(b.name, 'es')),
    [],
  );
}

const nameOf = (code: string | null | undefined) => (code ? countryName(code) : null);

/**
 * "País por defecto": the country national-format phones ("3126547882") are read in. Kommo's
 * own account country unless the operator picks another; a change re-checks the phones already
 * synced, in the background, with its progress and result below.
 */
export function KommoCountrySettings({ account, recheck, busy }: { account: KommoAccount; recheck: PhoneRecheck | null | undefined; busy: boolean }) {
  const options = useCountryOptions();
  const save = useUpdateDefaultCountry();
  const [choice, setChoice] = useState<string | null>(null);
  const saved = account.default_country ?? '';
  const current = choice ?? saved;
  const inForce = account.default_country ? nameOf(account.default_country) : nameOf(account.country);
  const interrupted = recheck?.status === 'interrupted';
  const kommoName = nameOf(account.country);
  const id = `default-country-${account.id}`;

  const onSave = () =>
    save.mutate(
      { id: account.id, country: current || null },
      {
        onSuccess: (a) => {
          setChoice(null);
          toast.success(a.phone_recheck?.status === 'running' ? 'País guardado: revisando los teléfonos' : 'País guardado');
        },
        onError: (err) => toast.error(errorMessage(err, 'Error al guardar el país')),
      },
    );

  return (
    <div className="space-y-2 text-sm">
      <details>
        <summary className="cursor-pointer text-gray-700">
          País de los teléfonos: {inForce ?? 'sin país'}
          {!account.default_country && inForce ? ' (de Kommo)' : ''}
        </summary>
        <div className="mt-3 space-y-3">
          <Select
            label="País por defecto"
            id={id}
            value={current}
            disabled={busy}
            hint={
              busy
                ? recheck?.status === 'running'
                  ? 'Espera a que termine la revisión de los teléfonos para cambiarlo.'
                  : 'Espera a que termine la sincronización para cambiarlo.'
                : 'Los números sin prefijo internacional (como 3126547882) se leen como de este país. Al cambiarlo se revisan los teléfonos ya sincronizados.'
            }
            onChange={(e) => setChoice(e.target.value)}
          >
            <option value="">{kommoName ? `Según la cuenta Kommo (${kommoName})` : 'Según la cuenta Kommo'}</option>
            {options.map((o) => (
              <option key={o.code} value={o.code}>
                {o.name}
              </option>
            ))}
          </Select>
          <div className="flex justify-end">
            <Button size="sm" disabled={busy || save.isPending || (current === saved && !interrupted)} onClick={onSave}>
              {current === saved && interrupted ? 'Terminar la revisión' : 'Guardar país'}
            </Button>
          </div>
        </div>
      </details>
      {recheck && <RecheckStatus recheck={recheck} subdomain={account.subdomain} />}
    </div>
  );
}

function RecheckStatus({ recheck: r, subdomain }: { recheck: PhoneRecheck; subdomain: string }) {
  const country = nameOf(r.country) ?? 'sin país';
  if (r.status === 'running') {
    const pct = r.total > 0 ? (r.processed / r.total) * 100 : 0;
    return (
      <div className="space-y-1" data-testid="phone-recheck">
        <p className="text-gray-700">
          Revisando teléfonos con {country}: {formatNumber(r.processed)} de {formatNumber(r.total)}
        </p>
        <ProgressBar value={pct} label={`Revisión de teléfonos de ${subdomain}`} valueText={`${formatNumber(r.processed)} de ${formatNumber(r.total)} contactos`} />
      </div>
    );
  }
  const result = `${formatNumber(r.became_valid)} ahora válidos, ${formatNumber(r.became_invalid)} ya no válidos, ${formatNumber(r.changed)} cambiados`;
  if (r.status === 'interrupted') {
    return (
      <p className="rounded-md bg-amber-50 p-2 text-amber-900" data-testid="phone-recheck">
        La revisión de teléfonos con {country} se interrumpió ({formatNumber(r.processed)} de {formatNumber(r.total)}; {result}). Guarda el país otra vez para
        terminarla.
      </p>
    );
  }
  return (
    <p className="text-gray-600" data-testid="phone-recheck">
      Teléfonos revisados con {country} el {formatDateTime(r.finished_at)}: {result}.
    </p>
  );
}
