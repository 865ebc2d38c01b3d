import { zodResolver } from '@hookform/resolvers/zod';
import { accessTokenSchema, subdomainSchema, type KommoField } from '@masivo/contract/kommo-accounts';
import { Download } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { useCreateKommoAccount, useFetchKommoFields } from '../api/kommo-account-mutations';
import { FormActions } from '@/components/ui/form-actions';

/** Spec §5: all three required; the phone field id is parsed as an integer. */
const formSchema = z.object({
  subdomain: subdomainSchema,
  access_token: accessTokenSchema,
  phone_field_id: z
    .string()
    .trim()
    .min(1, 'El campo de teléfono es requerido')
    .regex(/^\d+$/, 'El campo de teléfono debe ser un número entero'),
});
type FormValues = z.input<typeof formSchema>;

export function NewKommoAccountModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const create = useCreateKommoAccount();
  const fetchFields = useFetchKommoFields();
  const [fields, setFields] = useState<KommoField[]>([]);
  const { register, handleSubmit, watch, reset, setValue, formState } = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { subdomain: '', access_token: '', phone_field_id: '' },
  });
  const { errors } = formState;
  const subdomain = watch('subdomain');
  const token = watch('access_token');
  const canFetch = subdomain.trim() !== '' && token.trim() !== '' && !fetchFields.isPending;

  const close = () => {
    reset();
    setFields([]);
    onClose();
  };

  const onFetchFields = () =>
    fetchFields.mutate(
      { subdomain: subdomain.trim().toLowerCase(), access_token: token.trim() },
      {
        onSuccess: (list) => {
          setFields(list);
          // The predefined phone field is the usual choice; the operator can pick another.
          const phone = list.find((f) => f.code === 'PHONE');
          if (phone) setValue('phone_field_id', String(phone.id), { shouldValidate: true });
          toast.success(`${list.length} campos obtenidos`);
        },
        onError: (err) => toast.error(errorMessage(err, 'Error al obtener campos personalizados')),
      },
    );

  const onSubmit = handleSubmit((values) =>
    create.mutateAsync(
      { subdomain: values.subdomain.trim().toLowerCase(), access_token: values.access_token.trim(), phone_field_id: Number(values.phone_field_id) },
      {
        onSuccess: () => {
          toast.success('Cuenta Kommo creada exitosamente');
          close();
        },
        onError: (err) => toast.error(errorMessage(err, 'Error al crear la cuenta')),
      },
    ).catch(() => undefined),
  );

  return (
    <Modal open={open} title="Nueva Cuenta Kommo" onClose={close}>
      <form className="space-y-4" onSubmit={onSubmit} noValidate>
        <Input
          label="Subdominio"
          id="kommo-subdomain"
          placeholder="miempresa"
          hint="El nombre de tu cuenta: miempresa en miempresa.kommo.com"
          autoComplete="off"
          error={errors.subdomain?.message}
          {...register('subdomain')}
        />
        <Input
          label="Token de Acceso"
          id="kommo-access-token"
          type="password"
          placeholder="Token de larga duración de tu integración privada"
          autoComplete="off"
          error={errors.access_token?.message}
          {...register('access_token')}
        />
        <Button variant="secondary" onClick={onFetchFields} disabled={!canFetch} className="w-full">
          <Download className="h-4 w-4" />
          {fetchFields.isPending ? 'Obteniendo campos...' : 'Obtener Campos'}
        </Button>
        {fields.length > 0 ? (
          <Select label="Campo de Teléfono" id="kommo-phone-field" error={errors.phone_field_id?.message} {...register('phone_field_id')}>
            <option value="">Selecciona el campo de teléfono</option>
            {fields.map((f) => (
              <option key={f.id} value={String(f.id)}>
                {f.name} (ID: {f.id})
              </option>
            ))}
          </Select>
        ) : (
          <Input
            label="ID del Campo de Teléfono"
            id="kommo-phone-field"
            type="number"
            inputMode="numeric"
            min={1}
            placeholder="Ej: 1876814"
            hint="Usa 'Obtener Campos' para elegirlo de una lista"
            error={errors.phone_field_id?.message}
            {...register('phone_field_id')}
          />
        )}
        <FormActions onCancel={close} pending={create.isPending} label={'Crear Cuenta'} pendingLabel={'Creando...'} />
      </form>
    </Modal>
  );
}
