import { ROLE_LABEL } from '@masivo/contract/organizations';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useAuth } from '../../auth/auth-context';
import { AuthCard } from '../../auth/components/auth-card';
import { RegisterForm } from '../../auth/components/register-form';
import { organizationApi, useInvitationPreview } from '../api/organization-api';

/**
 * `/invitations/:token`, the page an invitation's link opens. Signed in with the invited e-mail:
 * «Unirme». Signed in as someone else: who to be instead. Signed out: sign up with the invited
 * e-mail (locked), or sign in and come back here.
 */
export function AcceptInvitationPage() {
  const { token = '' } = useParams();
  const { user, isLoading, adoptSession, logout } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const preview = useInvitationPreview(token);
  const [joining, setJoining] = useState(false);

  if (isLoading || preview.isLoading) return <Spinner className="min-h-screen" />;
  if (preview.isError || !preview.data)
    return (
      <AuthCard title="Invitación no válida" subtitle="">
        <p role="alert" className="text-center text-gray-700">
          {errorMessage(preview.error, 'La invitación no existe, ya se usó, fue revocada o venció')}. Pide a quien te invitó que te envíe una nueva.
        </p>
        <p className="mt-4 text-center text-sm">
          <Link to={user ? '/dashboard' : '/login'} className="font-medium text-blue-600 hover:text-blue-500">
            {user ? 'Ir al inicio' : 'Iniciar sesión'}
          </Link>
        </p>
      </AuthCard>
    );

  const inv = preview.data;
  const subtitle = (
    <>
      {inv.invited_by ? `${inv.invited_by} te invitó` : 'Te invitaron'} a unirte a <strong>{inv.organization}</strong> como{' '}
      <strong>{ROLE_LABEL[inv.role]}</strong>.
    </>
  );

  const join = async () => {
    setJoining(true);
    try {
      const answer = await organizationApi.accept(token);
      adoptSession(answer.token, answer.me.user);
      toast.success(`Te uniste a ${inv.organization}`);
      navigate('/dashboard', { replace: true });
    } catch (err) {
      toast.error(errorMessage(err, 'No se pudo aceptar la invitación'));
      setJoining(false);
    }
  };

  if (user && user.email.toLowerCase() === inv.email.toLowerCase())
    return (
      <AuthCard title="Invitación" subtitle={subtitle}>
        <Button className="w-full" onClick={() => void join()} disabled={joining}>
          {joining ? 'Uniéndote...' : 'Unirme'}
        </Button>
      </AuthCard>
    );

  if (user)
    return (
      <AuthCard title="Invitación" subtitle={subtitle}>
        <p className="text-sm text-gray-700">
          Esta invitación es para <strong>{inv.email}</strong>, pero iniciaste sesión como <strong>{user.email}</strong>. Cierra sesión y
          entra (o regístrate) con el email invitado.
        </p>
        <Button variant="secondary" className="mt-4 w-full" onClick={() => void logout()}>
          Cerrar sesión
        </Button>
      </AuthCard>
    );

  return (
    <AuthCard
      title="Únete a la organización"
      subtitle={
        <>
          {subtitle}{' '}
          ¿Ya tienes cuenta?{' '}
          <Link to="/login" state={{ from: location }} className="font-medium text-blue-600 hover:text-blue-500">
            Inicia sesión
          </Link>
        </>
      }
    >
      <RegisterForm lockedEmail={inv.email} invitationToken={token} onDone={() => navigate('/dashboard', { replace: true })} />
    </AuthCard>
  );
}
