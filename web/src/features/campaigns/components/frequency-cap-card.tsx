import { SUGGESTED_CAP } from '@masivo/contract/preflight';
import { useEffect, useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/field';
import { errorMessage } from '@/lib/api-client';
import { useFrequencyCap, useSaveFrequencyCap } from '../api/frequency-cap';

/**
 * "Configuración": the tenant's frequency cap. Off by default; turning it on
 * suggests 2 messages in 7 days. Applies to marketing templates, when an audience freezes
 * and again right before each send.
 */
export function FrequencyCapCard() {
  const current = useFrequencyCap();
  const save = useSaveFrequencyCap();
  const [enabled, setEnabled] = useState(false);
  const [maxMessages, setMaxMessages] = useState<string>(String(SUGGESTED_CAP.max_messages));
  const [days, setDays] = useState<string>(String(SUGGESTED_CAP.days));
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    const cap = current.data?.cap;
    setEnabled(!!cap);
    if (cap) {
      setMaxMessages(String(cap.max_messages));
      setDays(String(cap.days));
    }
  }, [current.data]);

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await save.mutateAsync({ cap: enabled ? { max_messages: Number(maxMessages), days: Number(days) } : null });
      toast.success(enabled ? 'Tope de frecuencia guardado' : 'Tope de frecuencia desactivado');
    } catch (err) {
      const message = errorMessage(err, 'Error al guardar el tope de frecuencia');
      setError(message);
      toast.error(message);
    }
  };

  return (
    <Card className="mt-6 p-4 sm:p-6" data-testid="frequency-cap-card">
      <h2 className="text-lg font-semibold text-gray-900">Configuración</h2>
      <form onSubmit={onSubmit} noValidate className="mt-3 space-y-4">
        <fieldset>
          <legend className="font-medium text-gray-900">Tope de frecuencia (marketing)</legend>
          <p className="mt-1 text-sm text-gray-600">
            Evita que un mismo contacto reciba demasiadas promociones: quien ya recibió el máximo en el período se omite como
            «tope de frecuencia».
          </p>
          <label className="mt-3 flex items-center gap-2 text-sm text-gray-900 max-sm:min-h-11">
            <input
              type="checkbox"
              className="h-4 w-4"
              checked={enabled}
              onChange={(e) => setEnabled(e.target.checked)}
              disabled={current.isPending}
            />
            Activar el tope de frecuencia
          </label>
          {enabled && (
            <div className="mt-3 flex flex-wrap items-end gap-3">
              <Input
                label="Máximo de mensajes"
                id="cap-max-messages"
                type="number"
                inputMode="numeric"
                min={1}
                max={100}
                value={maxMessages}
                onChange={(e) => setMaxMessages(e.target.value)}
                className="w-32"
              />
              <Input
                label="En días"
                id="cap-days"
                type="number"
                inputMode="numeric"
                min={1}
                max={90}
                value={days}
                onChange={(e) => setDays(e.target.value)}
                className="w-32"
              />
            </div>
          )}
          {error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {error}
            </p>
          )}
        </fieldset>
        <Button type="submit" disabled={save.isPending || current.isPending}>
          {save.isPending ? 'Guardando...' : 'Guardar'}
        </Button>
      </form>
    </Card>
  );
}
