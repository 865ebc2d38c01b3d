import { Navigate, Route, Routes } from 'react-router';
import { LoginPage } from '../features/auth/components/login-page';
import { RegisterPage } from '../features/auth/components/register-page';
import { BlacklistPage } from '../features/blacklist/components/blacklist-page';
import { CampaignDetailPage } from '../features/campaigns/components/campaign-detail-page';
import { CampaignsPage } from '../features/campaigns/components/campaigns-page';
import { NewCampaignPage } from '../features/campaigns/components/new-campaign-page';
import { ContactsPage } from '../features/contacts/components/contacts-page';
import { DashboardPage } from '../features/dashboard/components/dashboard-page';
import { KommoAccountsPage } from '../features/kommo-accounts/components/kommo-accounts-page';
import { TemplatesPage } from '../features/templates/components/templates-page';
import { WhatsAppAccountsPage } from '../features/whatsapp-accounts/components/whatsapp-accounts-page';
import { AppLayout } from './layout/app-layout';
import { ProtectedRoute, PublicOnlyRoute } from './route-guards';

/** Exactly the spec's route table (§2). */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<PublicOnlyRoute><LoginPage /></PublicOnlyRoute>} />
      <Route path="/register" element={<PublicOnlyRoute><RegisterPage /></PublicOnlyRoute>} />
      <Route path="/" element={<Navigate to="/dashboard" replace />} />
      <Route element={<ProtectedRoute><AppLayout /></ProtectedRoute>}>
        <Route path="/dashboard" element={<DashboardPage />} />
        <Route path="/accounts" element={<KommoAccountsPage />} />
        <Route path="/whatsapp-accounts" element={<WhatsAppAccountsPage />} />
        <Route path="/contacts" element={<ContactsPage />} />
        <Route path="/campaigns" element={<CampaignsPage />} />
        <Route path="/campaigns/new" element={<NewCampaignPage />} />
        <Route path="/campaigns/:id" element={<CampaignDetailPage />} />
        <Route path="/templates" element={<TemplatesPage />} />
        <Route path="/blacklist" element={<BlacklistPage />} />
      </Route>
      <Route path="*" element={<Navigate to="/dashboard" replace />} />
    </Routes>
  );
}
