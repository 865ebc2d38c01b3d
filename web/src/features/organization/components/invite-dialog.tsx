import { createInvitationSchema, type InvitationCreated } from '@masivo/contract/invitations';
import { EMPTY_SCOPE, ROLE_LABEL, UNSCOPED_ROLES, type Role, type Scope } from '@masivo/contract/organizations';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Input, Select } from '@/components/ui/field';
import { FormActions } from '@/components/ui/form-actions';
import { Modal } from '@/components/ui/modal';
import { errorMessage } from '@/lib/api-client';
import { useInvite } from '../api/organization-api';
import { grantableRoles } from './roles';
import { ScopeFields } from './scope-fields';

/**
 * Invite by e-mail with a role and a scope. `onCreated` receives the answer: without a mail
 * server it carries the link, which the page then shows to copy.
 */
export function InviteDialog({
  open,
  ownRole,
  onClose,
  onCreated,
}: {
  open: boolean;
  ownRole: Role | null;
  onClose: () => void;
  onCreated: (created: InvitationCreated) => void;
}) {
  const invite = useInvite();
  const roles = grantableRoles(ownRole);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [scope, setScope] = useState<Scope>(EMPTY_SCOPE);
  const [error, setError] = useState<string | undefined>();
  const close = () => {
    setEmail('');
    setRole('viewer');
    setScope(EMPTY_SCOPE);
    setError(undefined);
    onClose();
  };
  const submit = () => {
    const parsed = createInvitationSchema.safeParse({ email, role, scope: UNSCOPED_ROLES.includes(role) ? EMPTY_SCOPE : scope });
    if (!parsed.success) {
      setError(parsed.error.issues.find((i) => i.path[0] === 'email')?.message ?? parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    invite
      .mutateAsync(parsed.data)
      .then((created) => {
        toast.success(created.link ? 'Invitación creada: copia el enlace para enviarlo' : `Invitación enviada a ${created.invitation.email}`);
        onCreated(created);
        close();
      })
      .catch((err) => toast.error(errorMessage(err, 'Error al crear la invitación')));
  };
  return (
    <Modal open={open} title="Invitar miembro" onClose={close}>
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        noValidate
      >
        <Input label="Email" id="invite-email" type="email" required autoComplete="off" value={email} error={error} onChange={(e) => setEmail(e.target.value)} />
        <Select label="Rol" id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABEL[r]}
            </option>
          ))}
        </Select>
        <ScopeFields role={role} value={scope} onChange={setScope} />
        <p className="text-xs text-gray-500">El enlace vale 72 horas y sirve una sola vez.</p>
        <FormActions onCancel={close} pending={invite.isPending} label="Invitar" pendingLabel="Invitando..." />
      </form>
    </Modal>
  );
}
