import type {
  AcceptInvitationResponse,
  CreateInvitationInput,
  Invitation,
  InvitationCreated,
  InvitationPreview,
} from '@masivo/contract/invitations';
import type { Member, OrganizationSettings, OrganizationSettingsInput, UpdateMemberInput } from '@masivo/contract/organizations';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const organizationKeys = {
  members: ['organization', 'members'] as const,
  invitations: ['organization', 'invitations'] as const,
  settings: ['organization', 'settings'] as const,
  preview: (token: string) => ['invitation-preview', token] as const,
};

export const organizationApi = {
  members: () => api.get<Member[]>('/organization/members'),
  updateMember: (userId: number, input: UpdateMemberInput) => api.patch<Member>(`/organization/members/${userId}`, input),
  removeMember: (userId: number) => api.delete<{ success: true }>(`/organization/members/${userId}`),
  invitations: () => api.get<Invitation[]>('/organization/invitations'),
  invite: (input: CreateInvitationInput) => api.post<InvitationCreated>('/organization/invitations', input),
  resend: (id: number) => api.post<InvitationCreated>(`/organization/invitations/${id}/resend`),
  revoke: (id: number) => api.delete<{ success: true }>(`/organization/invitations/${id}`),
  settings: () => api.get<OrganizationSettings>('/organization/settings'),
  updateSettings: (input: OrganizationSettingsInput) => api.put<OrganizationSettings>('/organization/settings', input),
  preview: (token: string) => api.get<InvitationPreview>(`/invitations/${encodeURIComponent(token)}`),
  accept: (token: string) => api.post<AcceptInvitationResponse>('/invitations/accept', { token }),
};

export const useMembers = () => useQuery({ queryKey: organizationKeys.members, queryFn: organizationApi.members });
/** While a mail is on its way the list asks again every few seconds, so «Enviando…» turns into its outcome. */
export const useInvitations = () =>
  useQuery({
    queryKey: organizationKeys.invitations,
    queryFn: organizationApi.invitations,
    refetchInterval: (query) => (query.state.data?.some((i) => i.mail_status === 'sending') ? 3_000 : false),
  });
export const useOrganizationSettings = () => useQuery({ queryKey: organizationKeys.settings, queryFn: organizationApi.settings });

export function useUpdateMember() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, input }: { userId: number; input: UpdateMemberInput }) => organizationApi.updateMember(userId, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: organizationKeys.members }),
  });
}

export function useRemoveMember() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: organizationApi.removeMember,
    onSuccess: () => qc.invalidateQueries({ queryKey: organizationKeys.members }),
  });
}

/** Invite, resend and revoke all refresh the invitations list. */
function useInvitationMutation<A, R>(fn: (arg: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => qc.invalidateQueries({ queryKey: organizationKeys.invitations }) });
}
export const useInvite = () => useInvitationMutation(organizationApi.invite);
export const useResendInvitation = () => useInvitationMutation(organizationApi.resend);
export const useRevokeInvitation = () => useInvitationMutation(organizationApi.revoke);

export function useUpdateOrganizationSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: organizationApi.updateSettings,
    onSuccess: (saved) => qc.setQueryData(organizationKeys.settings, saved),
  });
}

/** The public preview of a link: no session needed, and a dead link is a 404 (not retried). */
export const useInvitationPreview = (token: string) =>
  useQuery({ queryKey: organizationKeys.preview(token), queryFn: () => organizationApi.preview(token), retry: false });
