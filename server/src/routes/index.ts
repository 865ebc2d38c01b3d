import type { FastifyInstance } from 'fastify';
import activityRoutes from './activity/index';
import apiKeyRoutes from './api-keys/index';
import publicApiRoutes from './v1/index';
import authRoutes from './auth/index';
import blacklistRoutes from './blacklist/index';
import campaignRoutes from './campaigns/index';
import contactRoutes from './contacts/index';
import dashboardRoutes from './dashboard/index';
import healthRoutes from './health/index';
import invitationRoutes from './invitations/index';
import kommoAccountRoutes from './kommo-accounts/index';
import kommoHookRoutes from './kommo-hooks/index';
import kommoWritebackRoutes from './kommo-writeback/index';
import organizationRoutes from './organizations/index';
import pricingRoutes from './pricing/index';
import templateRoutes from './templates/index';
import variableRoutes from './variables/index';
import settingsRoutes from './settings/index';
import webhookEndpointRoutes from './webhook-endpoints/index';
import webhookRoutes from './webhooks/index';
import whatsappAccountRoutes from './whatsapp-accounts/index';

/** Every API resource and its prefix, in one readable table. */
export async function registerRoutes(app: FastifyInstance) {
  await app.register(healthRoutes, { prefix: '/api/health' });
  await app.register(authRoutes, { prefix: '/api/auth' });
  await app.register(kommoAccountRoutes, { prefix: '/api/kommo' });
  // Kommo's webhooks: public, the secret in the address is the credential.
  await app.register(kommoHookRoutes, { prefix: '/api/kommo-hooks' });
  await app.register(contactRoutes, { prefix: '/api/contacts' });
  await app.register(blacklistRoutes, { prefix: '/api/blacklist' });
  await app.register(whatsappAccountRoutes, { prefix: '/api/whatsapp-accounts' });
  await app.register(templateRoutes, { prefix: '/api/templates' });
  await app.register(variableRoutes, { prefix: '/api/variables' });
  await app.register(campaignRoutes, { prefix: '/api/campaigns' });
  await app.register(settingsRoutes, { prefix: '/api/settings' });
  await app.register(webhookRoutes, { prefix: '/api/webhooks' });
  await app.register(pricingRoutes, { prefix: '/api/pricing' });
  await app.register(dashboardRoutes, { prefix: '/api/dashboard' });
  await app.register(kommoWritebackRoutes, { prefix: '/api' });
  await app.register(organizationRoutes, { prefix: '/api' });
  await app.register(invitationRoutes, { prefix: '/api' });
  await app.register(activityRoutes, { prefix: '/api' });
  await app.register(apiKeyRoutes, { prefix: '/api' });
  // The public API for other systems: API keys only, its own document and error format.
  await app.register(publicApiRoutes, { prefix: '/api/v1' });
  await app.register(webhookEndpointRoutes, { prefix: '/api/webhook-endpoints' });
}
