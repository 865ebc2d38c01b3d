import {
  createWhatsAppAccountSchema,
  DEFAULT_RATE_PER_SECOND,
  MAX_RATE_PER_SECOND,
  updateWhatsAppAccountSchema,
  type CreateWhatsAppAccountInput,
  type UpdateWhatsAppAccountInput,
  type WhatsAppAccount,
} from '@masivo/contract/whatsapp-accounts';
import { useForm } from 'react-hook-form';
import { Input, Select, Textarea } from '@/components/ui/field';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { useCreateWhatsAppAccount, useUpdateWhatsAppAccount } from '../api/save-whatsapp-account';
import { FormActions } from '@/components/ui/form-actions';
import type { SendingHoursInput } from '@masivo/contract/sending-hours';
import { useState } from 'react';
import { SendingHoursFields, sendingHoursError } from '@/components/sending-hours-fields';

interface FormValues {
  name: string;
  phone_number: string;
  phone_number_id: string;
  access_token: string;
  business_account_id: string;
  kommo_account_id: string;
  webhook_verify_token: string;
  notes: string;
  rate_per_second: string;
}

const EMPTY: FormValues = {
  name: '',
  phone_number: '',
  phone_number_id: '',
  access_token: '',
  business_account_id: '',
  kommo_account_id: '',
  webhook_verify_token: '',
  notes: '',
  rate_per_second: String(DEFAULT_RATE_PER_SECOND),
};

const valuesOf = (a: WhatsAppAccount): FormValues => ({
  name: a.name,
  phone_number: a.phone_number,
  phone_number_id: a.phone_number_id,
  access_token: '',
  business_account_id: a.business_account_id,
  kommo_account_id: a.kommo_account_id ? String(a.kommo_account_id) : '',
  webhook_verify_token: a.webhook_verify_token ?? '',
  notes: a.notes ?? '',
  rate_per_second: String(a.rate_per_second),
});

/** Spec §5: blank fields are not sent (on edit a blank token keeps the current one). */
function omitEmpty(values: FormValues): Partial<FormValues> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== '')) as Partial<FormValues>;
}

/** The add and edit modals: one form, the contract's schemas decide what is valid. */
export function AccountFormModal({ open, account, onClose }: { open: boolean; account: WhatsAppAccount | null; onClose: () => void }) {
  const editing = !!account;
  const kommo = useKommoAccounts();
  const create = useCreateWhatsAppAccount();
  const update = useUpdateWhatsAppAccount();
  const { register, handleSubmit, setError, formState, reset } = useForm<FormValues>({
    values: account ? valuesOf(account) : EMPTY,
  });
  const errors = formState.errors;
  // "Horario de envío" new campaigns of this number start with (the stored one until changed).
  const [hoursEdit, setHoursEdit] = useState<{ account: number | null; value: SendingHoursInput | null } | null>(null);
  const hours = hoursEdit && hoursEdit.account === (account?.id ?? null) ? hoursEdit.value : (account?.default_sending_hours ?? null);
  const hoursError = sendingHoursError(hours);

  const close = () => {
    reset(EMPTY);
    setHoursEdit(null);
    onClose();
  };

  const onSubmit = handleSubmit(async (values) => {
    if (hoursError) return;
    const payload = { ...omitEmpty(values), default_sending_hours: hours };
    const parsed = (editing ? updateWhatsAppAccountSchema : createWhatsAppAccountSchema).safeParse(payload);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        setError((issue.path[0] as keyof FormValues) ?? 'root', { message: issue.message });
      }
      return;
    }
    try {
      // What was checked is what is sent: normalised phone, numbers, blanks left out.
      if (account) await update.mutateAsync({ id: account.id, input: parsed.data as UpdateWhatsAppAccountInput });
      else await create.mutateAsync(parsed.data as CreateWhatsAppAccountInput);
      close();
    } catch (err) {
      window.alert(errorMessage(err, editing ? 'Error al actualizar la cuenta de WhatsApp' : 'Error al crear la cuenta de WhatsApp'));
    }
  });

  return (
    <Modal open={open} onClose={close} title={editing ? 'Editar Cuenta de WhatsApp' : 'Agregar Cuenta de WhatsApp'} wide>
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
          <Input label="Nombre de la cuenta *" placeholder="Mi cuenta de WhatsApp" error={errors.name?.message} {...register('name')} />
          <Input
            label={editing ? 'Número de teléfono' : 'Número de teléfono *'}
            placeholder="+1234567890"
            hint="Formato internacional, por ejemplo +1234567890"
            error={errors.phone_number?.message}
            {...register('phone_number')}
          />
          <Input
            label={editing ? 'Phone Number ID' : 'Phone Number ID *'}
            placeholder="123456789012345"
            error={errors.phone_number_id?.message}
            {...register('phone_number_id')}
          />
          <Input
            label={editing ? 'Business Account ID' : 'Business Account ID *'}
            placeholder="123456789012345"
            error={errors.business_account_id?.message}
            {...register('business_account_id')}
          />
        </div>
        <Input
          label={editing ? 'Access Token' : 'Access Token *'}
          type="password"
          autoComplete="off"
          placeholder={editing ? 'Dejar vacío para mantener el token actual' : 'EAAG...'}
          error={errors.access_token?.message}
          {...register('access_token')}
        />
        <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
          <Select label="Cuenta Kommo (opcional)" error={errors.kommo_account_id?.message} {...register('kommo_account_id')}>
            <option value="">Sin cuenta Kommo</option>
            {(kommo.data ?? []).map((k) => (
              <option key={k.id} value={k.id}>
                {k.subdomain}
              </option>
            ))}
          </Select>
          <Input
            label="Velocidad de envío (mensajes por segundo)"
            type="number"
            min={1}
            max={MAX_RATE_PER_SECOND}
            hint={`Meta permite ${DEFAULT_RATE_PER_SECOND} por defecto y hasta ${MAX_RATE_PER_SECOND} en números mejorados`}
            error={errors.rate_per_second?.message}
            {...register('rate_per_second')}
          />
        </div>
        <Input
          label="Webhook Verify Token (opcional)"
          placeholder="Se genera automáticamente si lo dejas vacío"
          error={errors.webhook_verify_token?.message}
          {...register('webhook_verify_token')}
        />
        <Textarea label="Notas (opcional)" rows={2} error={errors.notes?.message} {...register('notes')} />
        <fieldset className="rounded-md border border-gray-200 p-4">
          <legend className="px-1 text-sm font-medium text-gray-700">Horario de envío por defecto</legend>
          <SendingHoursFields value={hours} onChange={(value) => setHoursEdit({ account: account?.id ?? null, value })} error={hoursError} />
        </fieldset>
        <FormActions onCancel={close} pending={formState.isSubmitting} label={editing ? 'Guardar Cambios' : 'Crear Cuenta'} pendingLabel={'Guardando...'} className="border-t border-gray-200 pt-4" />
      </form>
    </Modal>
  );
}
