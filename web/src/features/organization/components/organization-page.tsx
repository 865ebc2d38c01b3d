import { ROLE_LABEL } from '@masivo/contract/organizations';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useMeQuery } from '@/lib/use-member';
import { InvitationsSection } from './invitations-section';
import { MembersSection } from './members-section';
import { SettingsSection } from './settings-section';

/** «Organización»: members, invitations and settings of the organisation the session acts in. */
export function OrganizationPage() {
  const me = useMeQuery();
  if (me.isLoading) return <Spinner className="py-12" />;
  if (me.isError)
    return (
      <p role="alert" className="p-6 text-center text-red-600">
        {errorMessage(me.error, 'Error al cargar la organización')}
      </p>
    );
  const role = me.data?.role ?? null;
  if (!me.data?.permissions.includes('organization.manage'))
    return (
      <div className="space-y-4">
        <PageHeader title="Organización" />
        <p className="text-gray-700">
          Tu rol{role ? ` (${ROLE_LABEL[role]})` : ''} no permite administrar los miembros ni la configuración de la organización.
        </p>
      </div>
    );
  return (
    <div className="space-y-8">
      <PageHeader title="Organización" description={me.data.organization ? `${me.data.organization.name} · tu rol: ${role ? ROLE_LABEL[role] : '-'}` : undefined} />
      <MembersSection ownRole={role} ownUserId={me.data.user.id} />
      <InvitationsSection ownRole={role} />
      <SettingsSection />
    </div>
  );
}
