import { zodResolver } from '@hookform/resolvers/zod';
import { registerFormSchema, type RegisterFormInput } from '@masivo/contract/auth';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/field';
import { errorMessage } from '@/lib/api-client';
import { useAuth } from '../auth-context';

/**
 * The sign-up form of /register and of an invitation's page. Through an invitation the e-mail is
 * the invited one, shown and locked (the server refuses any other), and the token goes along so
 * the account joins that organisation instead of founding its own.
 */
export function RegisterForm({ lockedEmail, invitationToken, onDone }: { lockedEmail?: string; invitationToken?: string; onDone: () => void }) {
  const { register: signUp } = useAuth();
  const { register, handleSubmit, formState } = useForm<RegisterFormInput>({
    resolver: zodResolver(registerFormSchema),
    defaultValues: { first_name: '', last_name: '', email: lockedEmail ?? '', password: '', confirmPassword: '' },
  });
  const { errors } = formState;

  // confirmPassword stays in the browser (spec §3).
  const onSubmit = handleSubmit(async ({ confirmPassword: _confirm, ...values }) => {
    try {
      await signUp({ ...values, ...(lockedEmail ? { email: lockedEmail } : {}), ...(invitationToken ? { invitation_token: invitationToken } : {}) });
      toast.success('Cuenta creada exitosamente');
      onDone();
    } catch (err) {
      toast.error(errorMessage(err, 'Error al crear la cuenta'));
    }
  });

  return (
    <form className="space-y-5" onSubmit={onSubmit} noValidate>
      <div className="grid grid-cols-2 gap-4">
        <Input label="Nombre" autoComplete="given-name" error={errors.first_name?.message} {...register('first_name')} />
        <Input label="Apellido" autoComplete="family-name" error={errors.last_name?.message} {...register('last_name')} />
      </div>
      <Input
        label="Email"
        required
        type="email"
        autoComplete="email"
        readOnly={!!lockedEmail}
        hint={lockedEmail ? 'El email de la invitación' : undefined}
        className={lockedEmail ? 'bg-gray-100' : undefined}
        error={errors.email?.message}
        {...register('email')}
      />
      <Input label="Contraseña" required type="password" autoComplete="new-password" error={errors.password?.message} {...register('password')} />
      <Input label="Confirmar Contraseña" required type="password" autoComplete="new-password" error={errors.confirmPassword?.message} {...register('confirmPassword')} />
      <Button type="submit" className="w-full" disabled={formState.isSubmitting}>
        {formState.isSubmitting ? 'Creando cuenta...' : 'Crear Cuenta'}
      </Button>
    </form>
  );
}
