import type { startKommoSim } from '@masivo/simulators/kommo';
import type { startWhatsAppSim } from '@masivo/simulators/whatsapp';
import { apiAs, type Stack } from './stack';

/** A console with something on every screen: a synced Kommo account, a WhatsApp number, templates, a campaign, a blacklisted number. */
export const SEED = {
  subdomain: 'demo',
  kommoToken: 'kommo-a11y-token',
  phoneNumberId: '3001',
  wabaId: '4001',
  waToken: 'wa-a11y-token',
  template: 'bienvenida_a11y',
} as const;

export const seededStackOptions = (): {
  kommo: Parameters<typeof startKommoSim>[0];
  whatsapp: Omit<NonNullable<Parameters<typeof startWhatsAppSim>[0]>, 'appSecret' | 'webhookUrl'>;
} => ({
  kommo: { accounts: [{ subdomain: SEED.subdomain, token: SEED.kommoToken, contacts: 120, seed: 7 }], rps: 100 },
  whatsapp: {
    numbers: [{ phoneNumberId: SEED.phoneNumberId, wabaId: SEED.wabaId, token: SEED.waToken, displayPhoneNumber: '5491155550000', throughput: 80 }],
    templates: [
      {
        wabaId: SEED.wabaId,
        name: SEED.template,
        language: 'es',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Hola {{1}}, gracias por escribirnos.', example: { body_text: [['Ana']] } }],
      },
    ],
    deliveryRate: 1,
    readRate: 1,
    statusDelayMs: 20,
  },
});

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Registers a user through the API and fills every screen; returns the session and the ids. */
export async function seed(stack: Stack, opts: { completedCampaign?: boolean } = {}) {
  const email = `a11y${Date.now()}${Math.floor(Math.random() * 1e6)}@example.com`;
  const res = await fetch(`${stack.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Laura', last_name: 'Gómez', email, password: 'secreto123' }),
  });
  if (!res.ok) throw new Error(`register → ${res.status} ${await res.text()}`);
  const session = (await res.json()) as { token: string; user: unknown };
  const api = apiAs(stack.baseUrl, session.token);

  const ids = await connectAccounts(stack, api, {
    subdomain: SEED.subdomain,
    kommoToken: SEED.kommoToken,
    phoneNumberId: SEED.phoneNumberId,
    wabaId: SEED.wabaId,
    waToken: SEED.waToken,
    template: SEED.template,
    name: 'Ventas',
    phone: '+5491155550000',
    ratePerSecond: 80,
  });
  const kommo = { id: ids.kommoAccountId };
  const wa = { id: ids.whatsappAccountId };
  const template = { id: ids.templateId };
  await api.post(`/blacklist/${kommo.id}`, { phone: '+54 9 11 5555-0101', reason: 'Pidió no recibir mensajes' });
  let campaignId: number | undefined;
  if (opts.completedCampaign) {
    const campaign = await api.post('/campaigns', {
      name: 'Bienvenida de otoño',
      description: 'Todos los contactos',
      kommo_account_id: kommo.id,
      whatsapp_account_id: wa.id,
      template_id: template.id,
      message_type: 'template',
      filters: { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} },
    });
    campaignId = campaign.id as number;
    await api.post(`/campaigns/${campaignId}/start`);
    await waitFor(async () => (await api.get(`/campaigns/${campaignId}`)).status === 'completed', 60_000);
  }
  return { session, api, kommoAccountId: kommo.id as number, whatsappAccountId: wa.id as number, templateId: template.id, campaignId };
}

/**
 * Through the API: a Kommo account synced to the end, a WhatsApp number linked to it, its
 * templates synced, and `template`'s {{1}} mapped to the contact's name.
 */
export async function connectAccounts(
  stack: Stack,
  api: ReturnType<typeof apiAs>,
  o: {
    subdomain: string;
    kommoToken: string;
    phoneNumberId: string;
    wabaId: string;
    waToken: string;
    template: string;
    name: string;
    phone: string;
    ratePerSecond: number;
  },
): Promise<{ kommoAccountId: number; whatsappAccountId: number; templateId: number }> {
  const { phoneFieldId } = stack.kommo.fields(o.subdomain);
  const kommo = await api.post('/kommo/accounts', { subdomain: o.subdomain, access_token: o.kommoToken, phone_field_id: phoneFieldId });
  await api.post('/kommo/sync-contacts', { account_id: kommo.id });
  await waitFor(async () => (await api.get(`/kommo/accounts/${kommo.id}/sync-status`)).sync_status === 'synced', 60_000);
  const wa = await api.post('/whatsapp-accounts', {
    name: o.name,
    phone_number: o.phone,
    phone_number_id: o.phoneNumberId,
    access_token: o.waToken,
    business_account_id: o.wabaId,
    kommo_account_id: kommo.id,
    rate_per_second: o.ratePerSecond,
  });
  await api.post('/templates/sync', { whatsapp_account_id: wa.id });
  const templates: { id: number; name: string }[] = await api.get(`/templates/account/${wa.id}`);
  const template = templates.find((t) => t.name === o.template)!;
  await api.post(`/variables/template/${template.id}/mappings`, {
    mappings: [{ templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'name', defaultValue: 'cliente' }],
  });
  return { kommoAccountId: kommo.id as number, whatsappAccountId: wa.id as number, templateId: template.id };
}
