import {
  APPROVAL_MODE_LABEL,
  APPROVAL_MODES,
  organizationSettingsSchema,
  type OrganizationSettings,
} from '@masivo/contract/organizations';
import { useEffect, useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input, Select } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useOrganizationSettings, useUpdateOrganizationSettings } from '../api/organization-api';

type Mode = OrganizationSettings['approval']['mode'];

/** Blank is "not set" (null); anything else goes to the schema as a number, which says what is wrong. */
const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text.replace(',', '.')));

/** «Configuración»: two-person approval and how long the activity log is kept. */
export function SettingsSection() {
  const settings = useOrganizationSettings();
  const save = useUpdateOrganizationSettings();
  const [mode, setMode] = useState<Mode>('off');
  const [minRecipients, setMinRecipients] = useState('');
  const [minCost, setMinCost] = useState('');
  const [retention, setRetention] = useState('365');
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    if (!settings.data) return;
    setMode(settings.data.approval.mode);
    setMinRecipients(settings.data.approval.min_recipients?.toString() ?? '');
    setMinCost(settings.data.approval.min_cost_usd?.toString() ?? '');
    setRetention(String(settings.data.activity_retention_days));
  }, [settings.data]);

  const submit = () => {
    const parsed = organizationSettingsSchema.safeParse({
      approval: {
        mode,
        // Only the threshold of the chosen mode is sent: the other one would be a stale value.
        min_recipients: mode === 'recipients' ? numberOrNull(minRecipients) : null,
        min_cost_usd: mode === 'cost' ? numberOrNull(minCost) : null,
      },
      activity_retention_days: numberOrNull(retention),
    });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.'), i.message])));
      return;
    }
    setErrors({});
    save.mutate(parsed.data, {
      onSuccess: () => toast.success('Configuración guardada'),
      onError: (err) => toast.error(errorMessage(err, 'Error al guardar la configuración')),
    });
  };

  return (
    <section aria-labelledby="settings-heading" className="space-y-3">
      <h2 id="settings-heading" className="text-lg font-semibold text-gray-900">
        Configuración
      </h2>
      <Card className="p-6">
        {settings.isLoading ? (
          <Spinner className="py-8" />
        ) : settings.isError ? (
          <p role="alert" className="text-center text-red-600">
            {errorMessage(settings.error, 'Error al cargar la configuración')}
          </p>
        ) : (
          <form
            className="max-w-md space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
            noValidate
          >
            <Select
              label="Aprobación de campañas"
              id="settings-approval-mode"
              value={mode}
              hint="Cuándo una campaña necesita que otra persona la apruebe antes de enviarse"
              onChange={(e) => setMode(e.target.value as Mode)}
            >
              {APPROVAL_MODES.map((m) => (
                <option key={m} value={m}>
                  {APPROVAL_MODE_LABEL[m]}
                </option>
              ))}
            </Select>
            {mode === 'recipients' && (
              <Input
                label="Cantidad de destinatarios (N)"
                id="settings-min-recipients"
                inputMode="numeric"
                required
                value={minRecipients}
                error={errors['approval.min_recipients']}
                onChange={(e) => setMinRecipients(e.target.value)}
              />
            )}
            {mode === 'cost' && (
              <Input
                label="Costo estimado en US$ (X)"
                id="settings-min-cost"
                inputMode="decimal"
                required
                value={minCost}
                error={errors['approval.min_cost_usd']}
                onChange={(e) => setMinCost(e.target.value)}
              />
            )}
            <Input
              label="Retención del registro de actividad (días)"
              id="settings-retention"
              inputMode="numeric"
              required
              value={retention}
              hint="Entre 30 y 3650 días"
              error={errors.activity_retention_days}
              onChange={(e) => setRetention(e.target.value)}
            />
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Guardando...' : 'Guardar configuración'}
            </Button>
          </form>
        )}
      </Card>
    </section>
  );
}
