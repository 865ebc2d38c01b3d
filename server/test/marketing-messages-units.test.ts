import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { marketingMessagesState } from '@masivo/contract/marketing-messages';
import { createTemplateSchema } from '@masivo/contract/templates';
import { MarketingRouter } from '../src/engine/campaigns/marketing-route';
import type { ActiveCampaign } from '../src/engine/campaigns/sender-campaigns';
import { readWebhook } from '../src/engine/campaigns/webhook-payload';
import { marketingRefusal } from '../src/integrations/whatsapp/marketing-messages';
import { createWhatsAppMessenger } from '../src/integrations/whatsapp/messenger';
import { priceOfMessage } from '../src/services/campaigns/campaign-cost';
import { RateIndex } from '../src/services/pricing/rate-lookup';
import { readCategoryChange } from '../src/services/templates/template-risk';
import type { SendingAccount } from '../src/services/whatsapp-accounts/account-secrets';

/**
 * The Marketing Messages API's pure parts, fed Meta's documented payloads: routing by the latest
 * category, the refusals (Meta's codes), the request, the click webhook, the category update,
 * `marketing_lite` pricing, the onboarding guidance and the TTL rules.
 */
const account = (marketingRoute: boolean): SendingAccount => ({
  id: 1, userId: 1, phoneNumberId: '106540352242922', businessAccountId: '102290129340398', accessToken: 't',
  ratePerSecond: 80, isActive: true, qualityRating: 'GREEN', marketingRoute,
});
const campaign = (category: string): ActiveCampaign => ({
  id: 1, userId: 1, kommoAccountId: null, templateId: 7, templateName: 'promo', language: 'es', template: { components: [] },
  category, mappings: [], headerMediaId: null, loadedAt: 0,
});

describe('routing', () => {
  it('sends only MARKETING of an onboarded number by /marketing_messages; a non-marketing template never goes there', () => {
    const router = new MarketingRouter();
    expect(router.route(account(true), campaign('MARKETING'))).toBe('marketing_messages');
    for (const category of ['UTILITY', 'AUTHENTICATION', '', 'marketing_lite']) expect(router.route(account(true), campaign(category))).toBe('messages');
    expect(router.route(account(false), campaign('MARKETING'))).toBe('messages');
  });

  it("classifies Meta's documented refusals: not onboarded moves the number; syncing waits per template; mismatch and ineligible per message", () => {
    expect(marketingRefusal(100, "Unsupported post request. Object with ID '1' does not exist, cannot be loaded due to missing permissions, or does not support this operation.")).toMatchObject({ kind: 'route_unavailable' });
    expect(marketingRefusal(100, '(#100) Invalid parameter: Parameter value is not valid')).toBeNull();
    expect(marketingRefusal(134101, 'Template not yet synced')).toMatchObject({ kind: 'template' });
    expect(marketingRefusal(134100, 'Template type not supported')).toEqual({ kind: 'message' });
    expect(marketingRefusal(131055, 'Method not allowed')).toEqual({ kind: 'message' });
    expect(marketingRefusal(134102, 'not eligible')).toEqual({ kind: 'message' });
    expect(marketingRefusal(131049, 'healthy ecosystem')).toBeNull();

    const router = new MarketingRouter();
    expect(router.refused(campaign('MARKETING'), 100, 'Unsupported post request.')).toEqual({ closeNumber: expect.stringMatching(/Meta rechazó/) });
    expect(router.route(account(true), campaign('MARKETING'))).toBe('messages');
    const other = new MarketingRouter();
    other.refused(campaign('MARKETING'), 134101, 'syncing');
    expect(other.route(account(true), campaign('MARKETING'))).toBe('messages');
  });

  it('POSTs /{id}/marketing_messages with product_policy STRICT and the same body as /messages', async () => {
    const seen: Array<{ url: string; body: Record<string, unknown> }> = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', body: JSON.parse(raw) });
        // Meta's MarketingMessageResponsePayload.
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: '+5491112345678', wa_id: '5491112345678' }], messages: [{ id: `wamid.${seen.length}` }], success: true }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const messenger = createWhatsAppMessenger({ graphUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v23.0`, connections: 1 });
    try {
      const base = { phoneNumberId: '106540352242922', accessToken: 't', to: '+5491112345678', templateName: 'promo', language: 'es', components: [], bizOpaque: 'x' };
      expect(await messenger.send({ ...base, route: 'marketing_messages' })).toEqual({ kind: 'ok', wamid: 'wamid.1' });
      expect(await messenger.send(base)).toEqual({ kind: 'ok', wamid: 'wamid.2' });
    } finally {
      await messenger.close();
      server.close();
    }
    expect(seen[0]!.url).toBe('/v23.0/106540352242922/marketing_messages');
    expect(seen[0]!.body).toMatchObject({ messaging_product: 'whatsapp', recipient_type: 'individual', type: 'template', product_policy: 'STRICT' });
    expect(seen[1]!.url).toBe('/v23.0/106540352242922/messages');
    expect(seen[1]!.body).not.toHaveProperty('product_policy');
    const { product_policy: _policy, ...rest } = seen[0]!.body;
    expect(rest).toEqual(seen[1]!.body);
  });
});

describe("Meta's documented payloads", () => {
  it('reads the click webhook (user_actions, marketing_messages_link_click)', () => {
    // The documented shape (track click events), with the change's contacts naming the person.
    const payload = {
      object: 'whatsapp_business_account',
      entry: [{
        id: '102290129340398',
        changes: [{
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
            contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
            user_actions: [{
              action_type: 'marketing_messages_link_click',
              timestamp: '1750263773',
              marketing_messages_link_click_data: { click_component: 'cta', product_id: 'sku_id', click_id: 'click_id', tracking_token: 'example_token' },
            }],
          },
          field: 'messages',
        }],
      }],
    };
    const read = readWebhook(payload);
    expect(read.clicks).toEqual([{
      phoneNumberId: '106540352242922', wabaId: '102290129340398', at: new Date(1750263773 * 1000).toISOString(),
      clickId: 'click_id', component: 'cta', from: '16505551234', userId: null, contextWamid: null,
    }]);
    expect(read.statuses).toEqual([]);
    expect(read.inbound).toEqual([]);
    // Without contacts (Meta's example exactly): read, but it names nobody.
    delete (payload.entry[0]!.changes[0]!.value as Record<string, unknown>).contacts;
    expect(readWebhook(payload).clicks?.[0]).toMatchObject({ from: null, userId: null });
  });

  it('changes the category only on the completed template_category_update, never on the impending one', () => {
    // Impending: new_category is the current one, correct_category the one to come.
    expect(readCategoryChange({ message_template_id: 12345678, message_template_name: 'promo', message_template_language: 'es', correct_category: 'UTILITY', new_category: 'MARKETING', category_update_timestamp: 1738195200 }))
      .toMatchObject({ kind: 'impending', to: 'UTILITY' });
    expect(readCategoryChange({ message_template_id: 12345678, message_template_name: 'promo', message_template_language: 'es', previous_category: 'MARKETING', new_category: 'UTILITY' }))
      .toEqual({ kind: 'completed', from: 'MARKETING', to: 'UTILITY', at: null });
  });

  it('reads pricing.category marketing_lite of a status, and prices it at the marketing rate', () => {
    const [s] = readWebhook({
      object: 'whatsapp_business_account',
      entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: {
        messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
        statuses: [{ id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA', status: 'delivered', timestamp: '1750263773', recipient_id: '16505551234',
          pricing: { billable: true, pricing_model: 'PMP', category: 'marketing_lite', type: 'regular' } }],
      } }] }],
    }).statuses;
    expect(s!.pricing).toEqual({ category: 'marketing_lite', type: 'regular', model: 'PMP' });
    const card = new RateIndex([{ category: 'marketing', market: 'AR', effective_from: '2025-07-01', usd_per_message: 0.0618 }] as never);
    const lite = priceOfMessage(card, { category: 'marketing_lite', type: 'regular', model: 'PMP', country: 'AR', day: '2026-11-01' });
    const plain = priceOfMessage(card, { category: 'marketing', type: 'regular', model: 'PMP', country: 'AR', day: '2026-11-01' });
    expect(lite).toEqual({ status: 'priced', micros: 61_800 });
    expect(lite).toEqual(plain);
  });
});

describe('onboarding guidance and TTL', () => {
  it('explains in Spanish how to accept the terms, and says when a refusal moved the number', () => {
    const base = { terms_status: null, checked_at: null, fallback_at: null, fallback_reason: null };
    expect(marketingMessagesState({ ...base, onboarding_status: 'ELIGIBLE' })).toMatchObject({ state: 'eligible', guidance: expect.stringMatching(/WhatsApp Manager/) });
    expect(marketingMessagesState({ ...base, onboarding_status: 'ONBOARDED' })).toMatchObject({ state: 'onboarded' });
    expect(marketingMessagesState({ ...base, onboarding_status: 'ONBOARDED', fallback_at: '2026-11-28T10:00:00Z' })).toMatchObject({ state: 'fallback' });
    expect(marketingMessagesState({ ...base, onboarding_status: 'INELIGIBLE_COUNTRY_NOT_SUPPORTED' }).state).toBe('ineligible');
    expect(marketingMessagesState({ ...base, onboarding_status: null }).state).toBe('unknown');
  });

  it('accepts a marketing TTL of 12 h to 30 days, and none on other categories', () => {
    const input = (category: string, ttl: number) => ({
      whatsapp_account_id: 1, name: 'promo', category, message_send_ttl_seconds: ttl,
      components: [{ type: 'BODY', text: 'Hola' }],
    });
    expect(createTemplateSchema.safeParse(input('marketing', 43_200)).success).toBe(true);
    expect(createTemplateSchema.safeParse(input('marketing', 2_592_000)).success).toBe(true);
    const short = createTemplateSchema.safeParse(input('marketing', 3_600));
    expect(short.success).toBe(false);
    expect(JSON.stringify(short.error?.issues)).toMatch(/12 horas a 30 días/);
    expect(createTemplateSchema.safeParse(input('marketing', 2_592_001)).success).toBe(false);
    const utility = createTemplateSchema.safeParse(input('utility', 43_200));
    expect(JSON.stringify(utility.error?.issues)).toMatch(/Solo las plantillas de marketing/);
  });
});
