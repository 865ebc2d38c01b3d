import { Link, useLocation, useNavigate } from 'react-router';
import { AuthCard } from './auth-card';
import { redirectTarget } from './redirect-target';
import { RegisterForm } from './register-form';

export function RegisterPage() {
  const navigate = useNavigate();
  const location = useLocation();
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
      <RegisterForm onDone={() => navigate(redirectTarget(location.state), { replace: true })} />
    </AuthCard>
  );
}
