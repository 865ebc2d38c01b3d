import type { CustomFieldInfo } from '@masivo/contract/contacts';
import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { DEFAULT_ACCOUNT_TIME_ZONE, isValidTimeZone } from '@masivo/contract/sending-hours';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { kommoAccountsKeys } from '@/api/kommo-accounts';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';
import { api, errorMessage } from '@/lib/api-client';

/**
 * Where the "Horario de envío" finds each contact's time zone: a contact field holding IANA
 * names ("Campo de zona horaria"), else the phone, else the account's own zone.
 */
export function KommoTimeZoneSettings({ account }: { account: KommoAccount }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [field, setField] = useState<string | null>(null);
  const [zone, setZone] = useState<string | null>(null);
  const currentField = field ?? account.time_zone_field ?? '';
  const currentZone = zone ?? account.time_zone ?? DEFAULT_ACCOUNT_TIME_ZONE;
  const fields = useQuery({
    queryKey: ['contacts', account.id, 'custom-fields'],
    queryFn: () => api.post<CustomFieldInfo[]>('/contacts/custom-fields', { accountId: account.id }),
    enabled: open,
  });
  const save = useMutation({
    mutationFn: () => api.put<KommoAccount>(`/kommo/accounts/${account.id}`, { time_zone_field: currentField || null, time_zone: currentZone.trim() }),
    onSuccess: () => {
      toast.success('Zona horaria guardada');
      setField(null);
      setZone(null);
      return qc.invalidateQueries({ queryKey: kommoAccountsKeys.all });
    },
    onError: (err) => toast.error(errorMessage(err, 'Error al guardar la zona horaria')),
  });
  const zoneError = isValidTimeZone(currentZone.trim()) ? undefined : 'Zona horaria inválida: usa un nombre como America/Bogota';
  const names = new Set((fields.data ?? []).map((f) => f.name));
  if (currentField) names.add(currentField);
  return (
    <details className="text-sm" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary className="cursor-pointer text-gray-700">Zona horaria: {account.time_zone ?? DEFAULT_ACCOUNT_TIME_ZONE}</summary>
      <div className="mt-3 space-y-3">
        <Select
          label="Campo de zona horaria"
          id={`tz-field-${account.id}`}
          value={currentField}
          hint="Un campo del contacto con nombres como America/Bogota; si está vacío o no es válido, se usa el teléfono."
          onChange={(e) => setField(e.target.value)}
        >
          <option value="">Ninguno (usar el teléfono)</option>
          {[...names].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </Select>
        <Input
          label="Zona horaria de la cuenta"
          id={`tz-zone-${account.id}`}
          value={currentZone}
          hint="Para los contactos cuya zona no se conoce por el campo ni por el teléfono."
          error={zoneError}
          onChange={(e) => setZone(e.target.value)}
        />
        <div className="flex justify-end">
          <Button size="sm" disabled={!!zoneError || save.isPending} onClick={() => save.mutate()}>
            Guardar zona horaria
          </Button>
        </div>
      </div>
    </details>
  );
}
