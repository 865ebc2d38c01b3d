import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { compareTemplates } from '../src/whatsapp/template-compare';
import type { Template } from '../src/whatsapp/templates';
import { call } from './helpers/graph';

const PN = '5701';
const WABA = '6701';
const TOKEN = 'compare-token';
const WEEK = 604_800;

const tpl = (id: string, name: string, wabaId = WABA) => ({ id, name, wabaId, language: 'es' }) as Template;

describe("WhatsApp simulator: Meta's template comparison", () => {
  const a = tpl('11', 'oferta_a');
  const b = tpl('12', 'oferta_b');
  const now = 1_800_000_000;
  const base = {
    target: a,
    templateIds: '[12]',
    start: String(now - WEEK),
    end: String(now),
    nowSec: now,
    lookup: (id: string) => [a, b, tpl('13', 'otra', '9999')].find((t) => t.id === id),
    sends: (t: Template): number => (t.id === '11' ? 1273 : 1042),
    blockRate: (t: Template) => (t.id === '11' ? 0.02 : 0.01),
  };

  it("answers in Meta's documented shape: ids by increasing block rate, sends, top block reason", () => {
    const out = compareTemplates(base);
    expect(out).toEqual({
      body: {
        data: [
          { metric: 'BLOCK_RATE', type: 'RELATIVE', order_by_relative_metric: ['12', '11'] },
          { metric: 'MESSAGE_SENDS', type: 'NUMBER_VALUES', number_values: [{ key: '11', value: 1273 }, { key: '12', value: 1042 }] },
          { metric: 'TOP_BLOCK_REASON', type: 'STRING_VALUES', string_values: [{ key: '11', value: 'SPAM' }, { key: '12', value: 'SPAM' }] },
        ],
      },
    });
  });

  it('enforces the rules Meta documents', () => {
    const refused = (patch: Partial<typeof base>) => {
      const out = compareTemplates({ ...base, ...patch });
      return 'error' in out ? String((out.error.body as { error: { error_data?: { details?: string } } }).error.error_data?.details) : 'ok';
    };
    expect(refused({ templateIds: '[12,13]' })).toMatch(/exactly one template/);
    expect(refused({ templateIds: undefined })).toMatch(/exactly one template/);
    expect(refused({ templateIds: '[13]' })).toMatch(/same WhatsApp Business Account/);
    expect(refused({ templateIds: '[99]' })).toMatch(/does not exist/);
    expect(refused({ start: String(now - WEEK + 1) })).toMatch(/7, 30, 60 or 90 day/);
    expect(refused({ start: String(now - 2_592_000) })).toBe('ok');
    expect(refused({ end: String(now + 3600), start: String(now + 3600 - WEEK) })).toMatch(/future/);
    expect(refused({ sends: (t: Template) => (t.id === '11' ? 1273 : 999) })).toMatch(/at least 1000 times/);
  });

  describe('over HTTP', () => {
    let sim: WhatsAppSim;
    beforeAll(async () => {
      sim = await startWhatsAppSim({
        numbers: [{ phoneNumberId: PN, wabaId: WABA, token: TOKEN, displayPhoneNumber: '5491150007701' }],
        templates: [
          { wabaId: WABA, name: 'oferta_a', language: 'es', category: 'MARKETING', components: [{ type: 'BODY', text: 'Hola' }] },
          { wabaId: WABA, name: 'oferta_b', language: 'es', category: 'MARKETING', components: [{ type: 'BODY', text: 'Buenas' }] },
        ],
      });
    });
    afterAll(() => sim?.close());

    it('checks the token and refuses templates sent fewer than 1,000 times', async () => {
      const list = await call(`${sim.graphUrl}/${WABA}/message_templates`, { token: TOKEN });
      const [ta, tb] = list.json.data as Array<{ id: string }>;
      const end = Math.floor(Date.now() / 1000);
      const url = `${sim.graphUrl}/${ta.id}/compare?template_ids=[${tb.id}]&start=${end - WEEK}&end=${end}`;
      expect((await call(url, { token: 'otro' })).status).toBe(401);
      const few = await call(url, { token: TOKEN });
      expect(few.status).toBe(400);
      expect(few.json.error.code).toBe(100);
      expect(few.json.error.error_data.details).toMatch(/at least 1000 times/);
    });
  });
});
