import type { Campaign } from '@masivo/contract/campaigns';

export const RECENT_CAMPAIGNS = 5;

export interface DashboardStats {
  totalContacts: number;
  activeCampaigns: number;
  completedCampaigns: number;
  pendingMessages: number;
}

type CampaignCounts = Pick<Campaign, 'status' | 'total_recipients' | 'messages_sent'>;

/** Spec §4 "Dashboard counts", exactly. */
export function dashboardStats(campaigns: CampaignCounts[], accounts: { sync_total_contacts: number }[]): DashboardStats {
  const sending = campaigns.filter((c) => c.status === 'sending');
  return {
    totalContacts: accounts.reduce((sum, a) => sum + (a.sync_total_contacts ?? 0), 0),
    activeCampaigns: campaigns.filter((c) => c.status === 'sending' || c.status === 'scheduled').length,
    completedCampaigns: campaigns.filter((c) => c.status === 'completed').length,
    pendingMessages: sending.reduce((sum, c) => sum + Math.max(0, c.total_recipients - c.messages_sent), 0),
  };
}

/** The 5 newest campaigns by created_at. */
export function recentCampaigns<T extends Pick<Campaign, 'created_at' | 'id'>>(campaigns: T[]): T[] {
  return [...campaigns]
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id)
    .slice(0, RECENT_CAMPAIGNS);
}
