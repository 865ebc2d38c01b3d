import { EMPTY_SCOPE, ROLE_LABEL, UNSCOPED_ROLES, type Member, type Role, type Scope } from '@masivo/contract/organizations';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Select } from '@/components/ui/field';
import { FormActions } from '@/components/ui/form-actions';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { useUpdateMember } from '../api/organization-api';
import { grantableRoles } from './roles';
import { ScopeFields } from './scope-fields';

/** Change a member's role and scope; their sessions in this organisation end on saving (server rule). */
export function MemberDialog({ member, ownRole, onClose }: { member: Member | null; ownRole: Role | null; onClose: () => void }) {
  // Keyed by member: each opening starts from that member's saved role and scope.
  return member ? <MemberForm key={member.user_id} member={member} ownRole={ownRole} onClose={onClose} /> : null;
}

function MemberForm({ member, ownRole, onClose }: { member: Member; ownRole: Role | null; onClose: () => void }) {
  const update = useUpdateMember();
  const [role, setRole] = useState<Role>(member.role);
  const [scope, setScope] = useState<Scope>(member.scope);
  const roles = grantableRoles(ownRole);
  const save = () =>
    update
      .mutateAsync({ userId: member.user_id, input: { role, scope: UNSCOPED_ROLES.includes(role) ? EMPTY_SCOPE : scope } })
      .then(() => {
        toast.success('Miembro actualizado');
        onClose();
      })
      .catch((err) => toast.error(errorMessage(err, 'Error al actualizar el miembro')));
  return (
    <Modal open title={`Editar a ${member.email}`} onClose={onClose}>
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        noValidate
      >
        <Select label="Rol" id="member-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {(roles.includes(member.role) ? roles : [member.role, ...roles]).map((r) => (
            <option key={r} value={r} disabled={!roles.includes(r)}>
              {ROLE_LABEL[r]}
            </option>
          ))}
        </Select>
        <ScopeFields role={role} value={scope} onChange={setScope} />
        <p className="text-xs text-gray-500">Al guardar, la persona deberá volver a iniciar sesión en esta organización.</p>
        <FormActions onCancel={onClose} pending={update.isPending} label="Guardar" pendingLabel="Guardando..." />
      </form>
    </Modal>
  );
}
