import { Navigate, Route, Routes } from 'react-router';
import { ActivityPage } from '../features/activity/components/activity-page';
import { ApiKeysPage } from '../features/api-keys/components/api-keys-page';
import { WebhooksPage } from '../features/webhooks/components/webhooks-page';
import { LoginPage } from '../features/auth/components/login-page';
import { RegisterPage } from '../features/auth/components/register-page';
import { BlacklistPage } from '../features/blacklist/components/blacklist-page';
import { CampaignDetailPage } from '../features/campaigns/components/campaign-detail-page';
import { CampaignsPage } from '../features/campaigns/components/campaigns-page';
import { EditCampaignPage, NewCampaignPage } from '../features/campaigns/components/new-campaign-page';
import { ContactsPage } from '../features/contacts/components/contacts-page';
import { DashboardPage } from '../features/dashboard/components/dashboard-page';
import { AcceptInvitationPage } from '../features/organization/components/accept-invitation-page';
import { OrganizationPage } from '../features/organization/components/organization-page';
import { KommoAccountsPage } from '../features/kommo-accounts/components/kommo-accounts-page';
import { PricingPage } from '../features/pricing/components/pricing-page';
import { TemplatesPage } from '../features/templates/components/templates-page';
import { WhatsAppAccountsPage } from '../features/whatsapp-accounts/components/whatsapp-accounts-page';
import { AppLayout } from './layout/app-layout';
import { Titled } from './page-title';
import { ProtectedRoute, PublicOnlyRoute } from './route-guards';

/** Exactly the spec's route table (§2). */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<PublicOnlyRoute><Titled title="Iniciar Sesión"><LoginPage /></Titled></PublicOnlyRoute>} />
      <Route path="/register" element={<PublicOnlyRoute><Titled title="Crear Cuenta"><RegisterPage /></Titled></PublicOnlyRoute>} />
      {/* Open signed in or out: the page itself offers joining, signing up or signing in. */}
      <Route path="/invitations/:token" element={<Titled title="Invitación"><AcceptInvitationPage /></Titled>} />
      <Route path="/" element={<Navigate to="/dashboard" replace />} />
      <Route element={<ProtectedRoute><AppLayout /></ProtectedRoute>}>
        <Route path="/dashboard" element={<Titled title="Dashboard"><DashboardPage /></Titled>} />
        <Route path="/accounts" element={<Titled title="Cuentas Kommo"><KommoAccountsPage /></Titled>} />
        <Route path="/whatsapp-accounts" element={<Titled title="Cuentas WhatsApp"><WhatsAppAccountsPage /></Titled>} />
        <Route path="/contacts" element={<Titled title="Contactos"><ContactsPage /></Titled>} />
        <Route path="/campaigns" element={<Titled title="Campañas"><CampaignsPage /></Titled>} />
        <Route path="/campaigns/new" element={<Titled title="Nueva Campaña"><NewCampaignPage /></Titled>} />
        <Route path="/campaigns/:id" element={<Titled title="Detalle de Campaña"><CampaignDetailPage /></Titled>} />
        <Route path="/campaigns/:id/edit" element={<Titled title="Editar Campaña"><EditCampaignPage /></Titled>} />
        <Route path="/templates" element={<Titled title="Templates"><TemplatesPage /></Titled>} />
        <Route path="/blacklist" element={<Titled title="Blacklist"><BlacklistPage /></Titled>} />
        <Route path="/pricing" element={<Titled title="Tarifas"><PricingPage /></Titled>} />
        <Route path="/organization" element={<Titled title="Organización"><OrganizationPage /></Titled>} />
        <Route path="/activity" element={<Titled title="Registro de actividad"><ActivityPage /></Titled>} />
        <Route path="/api-keys" element={<Titled title="Claves de API"><ApiKeysPage /></Titled>} />
        <Route path="/webhooks" element={<Titled title="Webhooks"><WebhooksPage /></Titled>} />
      </Route>
      <Route path="*" element={<Navigate to="/dashboard" replace />} />
    </Routes>
  );
}
