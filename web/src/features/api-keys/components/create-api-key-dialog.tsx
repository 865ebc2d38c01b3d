import {
  API_KEY_SCOPE_LABEL,
  API_KEY_SCOPES,
  createApiKeySchema,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  type ApiKeyScope,
  type CreatedApiKey,
} from '@masivo/contract/api-keys';
import { useState } from 'react';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';
import { Input } from '@/components/ui/field';
import { FormActions } from '@/components/ui/form-actions';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { useCreateApiKey } from '../api/create-api-key';
import { CreatedKeyPanel } from './created-key-panel';

type Field = 'name' | 'scopes' | 'whatsapp_account_ids' | 'expires_at' | 'rate_limit_per_minute';
/** The element each field's error belongs to, in the form's order (the first invalid one takes focus). */
const FOCUS_TARGET: Record<Field, string> = {
  name: 'api-key-name',
  scopes: `api-key-scope-${API_KEY_SCOPES[0]}`,
  whatsapp_account_ids: 'api-key-numbers',
  expires_at: 'api-key-expires',
  rate_limit_per_minute: 'api-key-rate',
};
const FIELDS = Object.keys(FOCUS_TARGET) as Field[];

/** Today as the date input writes it (local time), its earliest choice. */
const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};
/** A chosen day means "until that day ends", in the operator's time. */
const endOfDay = (date: string) => new Date(`${date}T23:59:59.999`).toISOString();

const EMPTY = { name: '', scopes: [] as ApiKeyScope[], numbers: [] as number[], expires: '', rate: String(DEFAULT_RATE_LIMIT_PER_MINUTE) };

/**
 * «Nueva clave»: name, scopes, numbers (none = all), expiry and rate limit, checked with the
 * server's own schema before sending. On success the same dialog turns into the key shown once.
 */
export function CreateApiKeyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const create = useCreateApiKey();
  const numbers = useWhatsAppAccounts();
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const close = () => {
    if (create.isPending) return;
    setForm(EMPTY);
    setErrors({});
    setServerError(null);
    setCreated(null);
    onClose();
  };
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((x) => x !== item));

  const submit = () => {
    const parsed = createApiKeySchema.safeParse({
      name: form.name,
      // In the contract's order, whatever order they were ticked in.
      scopes: API_KEY_SCOPES.filter((s) => form.scopes.includes(s)),
      whatsapp_account_ids: [...form.numbers].sort((a, b) => a - b),
      expires_at: form.expires ? endOfDay(form.expires) : null,
      rate_limit_per_minute: form.rate.trim() === '' ? Number.NaN : Number(form.rate),
    });
    if (!parsed.success) {
      const found: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as Field;
        if (FIELDS.includes(field) && !found[field]) found[field] = issue.message;
      }
      setErrors(found);
      const first = FIELDS.find((f) => found[f]);
      if (first) document.getElementById(FOCUS_TARGET[first])?.focus();
      return;
    }
    setErrors({});
    setServerError(null);
    create
      .mutateAsync(parsed.data)
      // No toast: the dialog's own title says it, and a toast would sit over the warning on a phone.
      .then(setCreated)
      .catch((err) => setServerError(errorMessage(err, 'Error al crear la clave')));
  };

  return (
    <Modal open={open} title={created ? 'Clave creada' : 'Nueva clave'} onClose={close}>
      {created ? (
        <CreatedKeyPanel created={created} onDone={close} />
      ) : (
        <form
          className="space-y-5"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
          noValidate
        >
          <Input
            label="Nombre *"
            id="api-key-name"
            autoComplete="off"
            maxLength={100}
            value={form.name}
            error={errors.name}
            hint="Para reconocerla: el sistema que la usa (ej: Tienda online). Aparece en el registro de actividad."
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />

          <fieldset className="space-y-2" aria-describedby={errors.scopes ? 'api-key-scopes-error' : 'api-key-scopes-hint'}>
            <legend className="text-sm font-medium text-gray-700">
              Permisos <span aria-hidden="true" className="text-red-600">*</span>
            </legend>
            <p id="api-key-scopes-hint" className="text-xs text-gray-500">
              Lo que la clave puede hacer. Nunca más de lo que tu rol permite.
            </p>
            {API_KEY_SCOPES.map((scope) => (
              <label key={scope} className="flex items-center gap-2 text-sm text-gray-800 max-lg:min-h-11">
                <input
                  type="checkbox"
                  id={`api-key-scope-${scope}`}
                  checked={form.scopes.includes(scope)}
                  onChange={(e) => setForm({ ...form, scopes: toggle(form.scopes, scope, e.target.checked) })}
                  className="h-4 w-4 shrink-0 rounded border-gray-300"
                />
                {API_KEY_SCOPE_LABEL[scope]}
              </label>
            ))}
            {errors.scopes && (
              <p id="api-key-scopes-error" className="text-sm text-red-600">
                {errors.scopes}
              </p>
            )}
          </fieldset>

          <fieldset id="api-key-numbers" tabIndex={-1} className="space-y-2" aria-describedby="api-key-numbers-hint">
            <legend className="text-sm font-medium text-gray-700">Números de WhatsApp</legend>
            <p id="api-key-numbers-hint" className="text-xs text-gray-500">
              Sin marcar ninguno: todos los números, también los que se agreguen después.
            </p>
            {numbers.isLoading && <p className="text-sm text-gray-500">Cargando números...</p>}
            {numbers.isError && <p className="text-sm text-red-600">Error al cargar los números</p>}
            {numbers.data?.length === 0 && <p className="text-sm text-gray-500">La organización no tiene números.</p>}
            {numbers.data?.map((n) => (
              <label key={n.id} className="flex items-center gap-2 text-sm text-gray-800 max-lg:min-h-11">
                <input
                  type="checkbox"
                  checked={form.numbers.includes(n.id)}
                  onChange={(e) => setForm({ ...form, numbers: toggle(form.numbers, n.id, e.target.checked) })}
                  className="h-4 w-4 shrink-0 rounded border-gray-300"
                />
                <span className="min-w-0 break-words">
                  {n.name} <span className="text-gray-500">({n.phone_number})</span>
                </span>
              </label>
            ))}
            {errors.whatsapp_account_ids && <p className="text-sm text-red-600">{errors.whatsapp_account_ids}</p>}
          </fieldset>

          <div className="grid gap-4 sm:grid-cols-2">
            <Input
              label="Vence"
              id="api-key-expires"
              type="date"
              min={today()}
              value={form.expires}
              error={errors.expires_at}
              hint="Opcional: deja de servir al terminar ese día. Vacío: no vence."
              onChange={(e) => setForm({ ...form, expires: e.target.value })}
            />
            <Input
              label="Peticiones por minuto *"
              id="api-key-rate"
              type="number"
              inputMode="numeric"
              min={1}
              max={10_000}
              step={1}
              value={form.rate}
              error={errors.rate_limit_per_minute}
              hint={`Límite de la clave (por defecto ${DEFAULT_RATE_LIMIT_PER_MINUTE}).`}
              onChange={(e) => setForm({ ...form, rate: e.target.value })}
            />
          </div>

          {serverError && (
            <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-700">
              {serverError}
            </p>
          )}
          <FormActions onCancel={close} pending={create.isPending} label="Crear clave" pendingLabel="Creando..." />
        </form>
      )}
    </Modal>
  );
}
