import { MAX_ACTIVE_API_KEYS, type ApiKey } from '@masivo/contract/api-keys';
import { ROLE_LABEL } from '@masivo/contract/organizations';
import { BookOpen, KeyRound, Plus } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useMeQuery } from '@/lib/use-member';
import { useApiKeys } from '../api/get-api-keys';
import { useRevokeApiKey } from '../api/revoke-api-key';
import { ApiKeysList } from './api-keys-list';
import { CreateApiKeyDialog } from './create-api-key-dialog';

const DOCS_URL = '/api/v1/docs';

function Intro() {
  return (
    <div className="max-w-3xl space-y-2 text-sm text-gray-700">
      <p>
        Una clave de API permite que otro sistema (la tienda online, una herramienta de informes, una automatización) use la API pública en nombre
        de la organización: leer campañas y contactos, crear campañas y enviarlas, según los permisos que le des. Nunca puede más que el rol de quien
        la creó.
      </p>
      <p>
        Lo que hace una clave queda en el registro de actividad como «clave «nombre»»: ponle un nombre que diga quién la usa.
      </p>
      <p>
        <a
          href={DOCS_URL}
          target="_blank"
          rel="noopener"
          className="inline-flex items-center gap-1 font-medium text-blue-700 underline hover:text-blue-800 max-sm:min-h-11"
        >
          <BookOpen className="h-4 w-4" aria-hidden="true" />
          Documentación de la API
          <span className="sr-only">(se abre en una pestaña nueva)</span>
        </a>
      </p>
    </div>
  );
}

/** «Claves de API»: the organisation's keys for the public API; create (shown once) and revoke. */
export function ApiKeysPage() {
  const me = useMeQuery();
  const allowed = !!me.data?.permissions.includes('api_keys.manage');
  if (me.isLoading) return <Spinner className="py-12" />;
  if (me.isError)
    return (
      <p role="alert" className="p-6 text-center text-red-600">
        {errorMessage(me.error, 'Error al cargar tu rol en la organización')}
      </p>
    );
  if (!allowed) {
    const role = me.data?.role;
    return (
      <div className="space-y-4">
        <PageHeader title="Claves de API" />
        <p className="text-gray-700">Tu rol{role ? ` (${ROLE_LABEL[role]})` : ''} no permite administrar las claves de API de la organización.</p>
      </div>
    );
  }
  return <ApiKeysManager />;
}

function ApiKeysManager() {
  const keys = useApiKeys();
  const numbers = useWhatsAppAccounts();
  const revoke = useRevokeApiKey();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const active = keys.data?.filter((k) => k.status === 'active').length ?? 0;

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: (after) => {
        toast.success(`Clave «${after.name}» revocada`);
        setRevoking(null);
      },
      onError: (err) => toast.error(errorMessage(err, 'Error al revocar la clave')),
    });
  };

  return (
    <div className="space-y-4">
      <PageHeader
        title="Claves de API"
        description={keys.data ? `${active} de ${MAX_ACTIVE_API_KEYS} claves activas` : undefined}
        actions={
          <Button onClick={() => setCreating(true)}>
            <Plus className="h-4 w-4" aria-hidden="true" />
            Nueva clave
          </Button>
        }
      />
      <Intro />
      <Card className="overflow-hidden">
        {keys.isLoading ? (
          <Spinner className="py-12" />
        ) : keys.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(keys.error, 'Error al cargar las claves')}
          </p>
        ) : !keys.data?.length ? (
          <EmptyState
            icon={<KeyRound className="h-12 w-12" />}
            title="Todavía no hay claves de API"
            hint="Crea una para conectar otro sistema con la API pública."
          />
        ) : (
          <ApiKeysList keys={keys.data} numbers={numbers.data} onRevoke={setRevoking} />
        )}
      </Card>
      <CreateApiKeyDialog open={creating} onClose={() => setCreating(false)} />
      <ConfirmDialog
        open={!!revoking}
        title={`¿Revocar la clave «${revoking?.name ?? ''}»?`}
        message="Dejará de funcionar desde la próxima petición que haga el sistema que la usa, y no se puede reactivar: para volver a conectarlo tendrás que crear otra clave."
        confirmLabel="Revocar"
        pendingLabel="Revocando..."
        pending={revoke.isPending}
        variant="danger"
        onConfirm={confirmRevoke}
        onCancel={() => !revoke.isPending && setRevoking(null)}
      />
    </div>
  );
}
