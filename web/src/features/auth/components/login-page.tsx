import { zodResolver } from '@hookform/resolvers/zod';
import { loginSchema, type LoginInput } from '@masivo/contract/auth';
import { useForm } from 'react-hook-form';
import toast from 'react-hot-toast';
import { Link, useLocation, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/field';
import { errorMessage } from '@/lib/api-client';
import { useAuth } from '../auth-context';
import { AuthCard } from './auth-card';
import { redirectTarget } from './redirect-target';

export function LoginPage() {
  const { login } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const { register, handleSubmit, formState } = useForm<LoginInput>({
    resolver: zodResolver(loginSchema),
    defaultValues: { email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      await login(values);
      toast.success('Login exitoso');
      navigate(redirectTarget(location.state), { replace: true });
    } catch (err) {
      toast.error(errorMessage(err, 'Error al iniciar sesión'));
    }
  });

  return (
    <AuthCard
      title="Iniciar Sesión"
      subtitle={
        <>
          O{' '}
          <Link to="/register" state={location.state} className="font-medium text-blue-600 hover:text-blue-500">
            crear una cuenta nueva
          </Link>
        </>
      }
    >
      <form className="space-y-5" onSubmit={onSubmit} noValidate>
        <Input label="Email" required type="email" autoComplete="email" error={formState.errors.email?.message} {...register('email')} />
        <Input label="Contraseña" required type="password" autoComplete="current-password" error={formState.errors.password?.message} {...register('password')} />
        <Button type="submit" className="w-full" disabled={formState.isSubmitting}>
          {formState.isSubmitting ? 'Iniciando sesión...' : 'Iniciar Sesión'}
        </Button>
      </form>
    </AuthCard>
  );
}
