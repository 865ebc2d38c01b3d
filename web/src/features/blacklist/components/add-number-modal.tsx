import { zodResolver } from '@hookform/resolvers/zod';
import { addBlacklistSchema, type AddBlacklistInput } from '@masivo/contract/blacklist';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { Input, Textarea } from '@/components/ui/field';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { useAddToBlacklist } from '../api/blacklist-mutations';
import { FormActions } from '@/components/ui/form-actions';

export function AddNumberModal({ accountId, open, onClose }: { accountId: number; open: boolean; onClose: () => void }) {
  const add = useAddToBlacklist(accountId);
  const { register, handleSubmit, reset, formState } = useForm<AddBlacklistInput>({
    resolver: zodResolver(addBlacklistSchema),
    defaultValues: { phone: '', reason: '' },
  });
  const close = () => {
    reset();
    onClose();
  };
  const onSubmit = handleSubmit((values) =>
    add
      .mutateAsync({ phone: values.phone, reason: values.reason?.trim() || undefined })
      .then(() => {
        toast.success('Número agregado a blacklist exitosamente');
        close();
      })
      .catch((err) => toast.error(errorMessage(err, 'Error al agregar a blacklist'))),
  );
  return (
    <Modal open={open} title="Agregar Número a Blacklist" onClose={close}>
      <form className="space-y-4" onSubmit={onSubmit} noValidate>
        <Input
          label="Teléfono"
          id="blacklist-phone"
          type="tel"
          placeholder="+54 9 11 1234-5678"
          hint="En cualquier formato: se guarda normalizado, así no se repite"
          error={formState.errors.phone?.message}
          {...register('phone')}
        />
        <Textarea label="Motivo (opcional)" id="blacklist-reason" rows={3} placeholder="Ej: pidió no recibir mensajes" {...register('reason')} />
        <FormActions onCancel={close} pending={add.isPending} label={'Agregar'} pendingLabel={'Agregando...'} />
      </form>
    </Modal>
  );
}
