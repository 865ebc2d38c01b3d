import { ROLE_LABEL, type Member, type Role } from '@masivo/contract/organizations';
import { Pencil, Trash2, Users } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { TableScroll } from '@/components/ui/data-list';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { TableHead } from '@/components/ui/table-head';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useMembers, useRemoveMember } from '../api/organization-api';
import { MemberDialog } from './member-dialog';
import { scopeSummary } from './scope-fields';

const nameOf = (m: Member) => `${m.first_name} ${m.last_name}`.trim() || m.email;

/** «Miembros»: who belongs, with what role and scope; edit and remove (the server keeps one owner at least). */
export function MembersSection({ ownRole, ownUserId }: { ownRole: Role | null; ownUserId: number | undefined }) {
  const members = useMembers();
  const remove = useRemoveMember();
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  // Only an owner changes another owner (server rule); the buttons say so by not being there.
  const manageable = (m: Member) => m.user_id !== ownUserId && (m.role !== 'owner' || ownRole === 'owner');

  const confirmRemove = () => {
    if (!removing) return;
    remove.mutate(removing.user_id, {
      onSuccess: () => {
        toast.success('Miembro quitado de la organización');
        setRemoving(null);
      },
      onError: (err) => toast.error(errorMessage(err, 'Error al quitar el miembro')),
    });
  };

  return (
    <section aria-labelledby="members-heading" className="space-y-3">
      <h2 id="members-heading" className="text-lg font-semibold text-gray-900">
        Miembros
      </h2>
      <Card className="overflow-hidden">
        {members.isLoading ? (
          <Spinner className="py-12" />
        ) : members.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(members.error, 'Error al cargar los miembros')}
          </p>
        ) : !members.data?.length ? (
          <EmptyState icon={<Users className="h-12 w-12" />} title="No hay miembros" />
        ) : (
          <TableScroll label="Lista de miembros">
            <table className="min-w-full divide-y divide-gray-200 text-sm">
              <TableHead columns={['Nombre', 'Email', 'Rol', 'Alcance', 'Desde', 'Acciones']} dense />
              <tbody className="divide-y divide-gray-100 bg-white">
                {members.data.map((m) => (
                  <tr key={m.user_id}>
                    <td className="px-4 py-2.5 text-gray-900">
                      {nameOf(m)}
                      {m.user_id === ownUserId && <span className="ml-1 text-xs text-gray-500">(tú)</span>}
                    </td>
                    <td className="px-4 py-2.5 text-gray-700">{m.email}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{ROLE_LABEL[m.role]}</td>
                    <td className="px-4 py-2.5 text-gray-700">{scopeSummary(m.role, m.scope)}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{formatDate(m.joined_at)}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap">
                      {manageable(m) && (
                        <div className="flex gap-1">
                          <Button variant="ghost" size="sm" onClick={() => setEditing(m)} aria-label={`Editar a ${m.email}`}>
                            <Pencil className="h-4 w-4" aria-hidden="true" />
                            Editar
                          </Button>
                          <Button variant="ghost" size="sm" className="text-red-600" onClick={() => setRemoving(m)} aria-label={`Quitar a ${m.email}`}>
                            <Trash2 className="h-4 w-4" aria-hidden="true" />
                            Quitar
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
      <MemberDialog member={editing} ownRole={ownRole} onClose={() => setEditing(null)} />
      <ConfirmDialog
        open={!!removing}
        title={`¿Quitar a ${removing?.email ?? ''}?`}
        message="Dejará de tener acceso a esta organización de inmediato. Podrás invitarle de nuevo más adelante."
        confirmLabel="Quitar"
        pendingLabel="Quitando..."
        pending={remove.isPending}
        variant="danger"
        onConfirm={confirmRemove}
        onCancel={() => !remove.isPending && setRemoving(null)}
      />
    </section>
  );
}
