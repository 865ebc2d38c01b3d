import { zodResolver } from '@hookform/resolvers/zod';
import { registerFormSchema, type RegisterFormInput } from '@masivo/contract/auth';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { Link, useLocation, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/field';
import { errorMessage } from '@/lib/api-client';
import { useAuth } from '../auth-context';
import { AuthCard } from './auth-card';
import { redirectTarget } from './redirect-target';

export function RegisterPage() {
  const { register: signUp } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const { register, handleSubmit, formState } = useForm<RegisterFormInput>({
    resolver: zodResolver(registerFormSchema),
    defaultValues: { first_name: '', last_name: '', email: '', password: '', confirmPassword: '' },
  });
  const { errors } = formState;

  // confirmPassword stays in the browser (spec §3).
  const onSubmit = handleSubmit(async ({ confirmPassword: _confirm, ...values }) => {
    try {
      await signUp(values);
      toast.success('Cuenta creada exitosamente');
      navigate(redirectTarget(location.state), { replace: true });
    } catch (err) {
      toast.error(errorMessage(err, 'Error al crear la cuenta'));
    }
  });

  return (
    <AuthCard
      title="Crear Cuenta"
      subtitle={
        <>
          O{' '}
          <Link to="/login" state={location.state} className="font-medium text-blue-600 hover:text-blue-500">
            inicia sesión con tu cuenta existente
          </Link>
        </>
      }
    >
      <form className="space-y-5" onSubmit={onSubmit} noValidate>
        <div className="grid grid-cols-2 gap-4">
          <Input label="Nombre" autoComplete="given-name" error={errors.first_name?.message} {...register('first_name')} />
          <Input label="Apellido" autoComplete="family-name" error={errors.last_name?.message} {...register('last_name')} />
        </div>
        <Input label="Email" required type="email" autoComplete="email" error={errors.email?.message} {...register('email')} />
        <Input label="Contraseña" required type="password" autoComplete="new-password" error={errors.password?.message} {...register('password')} />
        <Input label="Confirmar Contraseña" required type="password" autoComplete="new-password" error={errors.confirmPassword?.message} {...register('confirmPassword')} />
        <Button type="submit" className="w-full" disabled={formState.isSubmitting}>
          {formState.isSubmitting ? 'Creando cuenta...' : 'Crear Cuenta'}
        </Button>
      </form>
    </AuthCard>
  );
}
