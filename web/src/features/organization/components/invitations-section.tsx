import {
  INVITATION_STATUS_LABEL,
  MAIL_STATUS_LABEL,
  type Invitation,
  type InvitationCreated,
  type InvitationStatus,
} from '@masivo/contract/invitations';
import { ROLE_LABEL, type Role } from '@masivo/contract/organizations';
import { Copy, Mail, Plus, RotateCw, XCircle } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { TableScroll } from '@/components/ui/data-list';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { TableHead } from '@/components/ui/table-head';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useInvitations, useResendInvitation, useRevokeInvitation } from '../api/organization-api';
import { InviteDialog } from './invite-dialog';

const STATUS_TONE: Record<InvitationStatus, BadgeTone> = { pending: 'blue', accepted: 'green', revoked: 'gray', expired: 'yellow' };

/**
 * The link of the last invitation created or resent, when the server answered one (no mail
 * server): it exists only in this answer (the server keeps its hash), so it is shown once, here.
 */
function LinkToCopy({ created, onDismiss }: { created: InvitationCreated; onDismiss: () => void }) {
  const copy = () =>
    navigator.clipboard
      .writeText(created.link!)
      .then(() => toast.success('Enlace copiado'))
      .catch(() => toast.error('No se pudo copiar: selecciona el enlace y cópialo a mano'));
  return (
    <Card className="space-y-2 border-blue-200 bg-blue-50 p-4" role="status">
      <p className="text-sm text-gray-800">
        No hay servidor de correo configurado: envía este enlace a <strong>{created.invitation.email}</strong>. Solo se muestra ahora.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <input
          readOnly
          aria-label="Enlace de la invitación"
          value={created.link!}
          onFocus={(e) => e.target.select()}
          className="min-w-0 flex-1 rounded-md border border-gray-300 bg-white px-3 py-2 font-mono text-xs"
        />
        <Button size="sm" onClick={() => void copy()}>
          <Copy className="h-4 w-4" aria-hidden="true" />
          Copiar enlace
        </Button>
        <Button size="sm" variant="secondary" onClick={onDismiss}>
          Listo
        </Button>
      </div>
    </Card>
  );
}

/** «Invitaciones»: invite, see each one's status and mail status, resend, revoke. */
export function InvitationsSection({ ownRole }: { ownRole: Role | null }) {
  const invitations = useInvitations();
  const resend = useResendInvitation();
  const revoke = useRevokeInvitation();
  const [inviting, setInviting] = useState(false);
  const [created, setCreated] = useState<InvitationCreated | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);

  const onResend = (inv: Invitation) =>
    resend.mutate(inv.id, {
      onSuccess: (answer) => {
        toast.success(answer.link ? 'Nuevo enlace creado: el anterior ya no sirve' : `Invitación reenviada a ${inv.email}`);
        setCreated(answer.link ? answer : null);
      },
      onError: (err) => toast.error(errorMessage(err, 'Error al reenviar la invitación')),
    });
  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => {
        toast.success('Invitación revocada');
        setRevoking(null);
      },
      onError: (err) => toast.error(errorMessage(err, 'Error al revocar la invitación')),
    });
  };
  const open = (inv: Invitation) => inv.status === 'pending' || inv.status === 'expired';

  return (
    <section aria-labelledby="invitations-heading" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="invitations-heading" className="text-lg font-semibold text-gray-900">
          Invitaciones
        </h2>
        <Button onClick={() => setInviting(true)}>
          <Plus className="h-4 w-4" aria-hidden="true" />
          Invitar miembro
        </Button>
      </div>
      {created?.link && <LinkToCopy created={created} onDismiss={() => setCreated(null)} />}
      <Card className="overflow-hidden">
        {invitations.isLoading ? (
          <Spinner className="py-12" />
        ) : invitations.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(invitations.error, 'Error al cargar las invitaciones')}
          </p>
        ) : !invitations.data?.length ? (
          <EmptyState icon={<Mail className="h-12 w-12" />} title="No hay invitaciones" hint="Invita a alguien por email para que se una a la organización." />
        ) : (
          <TableScroll label="Lista de invitaciones">
            <table className="min-w-full divide-y divide-gray-200 text-sm">
              <TableHead columns={['Email', 'Rol', 'Estado', 'Correo', 'Vence', 'Acciones']} dense />
              <tbody className="divide-y divide-gray-100 bg-white">
                {invitations.data.map((inv) => (
                  <tr key={inv.id}>
                    <td className="px-4 py-2.5 text-gray-900">{inv.email}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{ROLE_LABEL[inv.role]}</td>
                    <td className="px-4 py-2.5">
                      <Badge tone={STATUS_TONE[inv.status]}>{INVITATION_STATUS_LABEL[inv.status]}</Badge>
                    </td>
                    <td className="px-4 py-2.5 text-gray-700">
                      {MAIL_STATUS_LABEL[inv.mail_status]}
                      {inv.mail_status === 'failed' && inv.mail_error && <span className="block text-xs text-red-600">{inv.mail_error}</span>}
                    </td>
                    <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{inv.status === 'accepted' ? '-' : formatDateTime(inv.expires_at)}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap">
                      {open(inv) && (
                        <div className="flex gap-1">
                          <Button variant="ghost" size="sm" onClick={() => onResend(inv)} disabled={resend.isPending} aria-label={`Reenviar a ${inv.email}`}>
                            <RotateCw className="h-4 w-4" aria-hidden="true" />
                            Reenviar
                          </Button>
                          <Button variant="ghost" size="sm" className="text-red-600" onClick={() => setRevoking(inv)} aria-label={`Revocar la invitación de ${inv.email}`}>
                            <XCircle className="h-4 w-4" aria-hidden="true" />
                            Revocar
                          </Button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Card>
      <InviteDialog open={inviting} ownRole={ownRole} onClose={() => setInviting(false)} onCreated={(answer) => setCreated(answer.link ? answer : null)} />
      <ConfirmDialog
        open={!!revoking}
        title={`¿Revocar la invitación de ${revoking?.email ?? ''}?`}
        message="El enlace dejará de servir de inmediato."
        confirmLabel="Revocar"
        pendingLabel="Revocando..."
        pending={revoke.isPending}
        variant="danger"
        onConfirm={confirmRevoke}
        onCancel={() => !revoke.isPending && setRevoking(null)}
      />
    </section>
  );
}
