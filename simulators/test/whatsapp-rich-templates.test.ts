import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call } from './helpers/graph';

const PN = '3001';
const WABA = '4001';
const TOKEN = 'rich-token';

const IMAGE_URL = {
  wabaId: WABA, name: 'seasonal_promotion', language: 'en_US', category: 'MARKETING' as const,
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2U=:x'] } },
    { type: 'BODY', text: 'Shop now through {{1}} and use code {{2}} to get {{3}} off.', example: { body_text: [['August', '25OFF', '25%']] } },
    { type: 'BUTTONS', buttons: [
      { type: 'URL', text: 'Shop Now', url: 'https://shop.example/promo={{1}}', example: ['https://shop.example/promo=summer'] },
      { type: 'PHONE_NUMBER', text: 'Call', phone_number: '15550051310' }] },
  ],
};
const NAMED = {
  wabaId: WABA, name: 'order_confirmation', language: 'en_US', category: 'UTILITY' as const, parameter_format: 'NAMED' as const,
  components: [{ type: 'BODY', text: 'Thank you, {{first_name}}! Your order number is {{order_number}}.' }],
};
const COUPON = {
  wabaId: WABA, name: 'coupon', language: 'en_US', category: 'MARKETING' as const,
  components: [
    { type: 'BODY', text: 'Use code {{1}} today.' },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Unsubscribe' }, { type: 'COPY_CODE', example: '250FF' }] },
  ],
};
const DOC = {
  wabaId: WABA, name: 'invoice', language: 'en_US', category: 'UTILITY' as const,
  components: [{ type: 'HEADER', format: 'DOCUMENT', example: { header_handle: ['h'] } }, { type: 'BODY', text: 'Your invoice.' }],
};
const LOCATION = {
  wabaId: WABA, name: 'pickup', language: 'en_US', category: 'UTILITY' as const,
  components: [{ type: 'HEADER', format: 'LOCATION' }, { type: 'BODY', text: 'Ready for pickup.' }],
};

const sendOf = (name: string, components: unknown[]) => ({
  messaging_product: 'whatsapp', recipient_type: 'individual', to: '+5491155550000', type: 'template',
  template: { name, language: { code: 'en_US' }, components },
});
const body3 = { type: 'body', parameters: [{ type: 'text', text: 'August' }, { type: 'text', text: '25OFF' }, { type: 'text', text: '25%' }] };
const urlButton = { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'summer' }] };
const imageHeader = (image: Record<string, string>) => ({ type: 'header', parameters: [{ type: 'image', image }] });

function multipart(fields: Record<string, string>, file?: { name: string; type: string; bytes: Buffer }) {
  const boundary = 'simtestboundary';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\ncontent-type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

describe('WhatsApp simulator: rich templates', () => {
  let sim: WhatsAppSim;
  let media: Server;
  let mediaUrl = '';
  const send = (body: unknown) => call(`${sim.graphUrl}/${PN}/messages`, { token: TOKEN, body });
  const upload = async (fields: Record<string, string>, file?: { name: string; type: string; bytes: Buffer }) => {
    const m = multipart(fields, file);
    const res = await fetch(`${sim.graphUrl}/${PN}/media`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': m.type }, body: m.body });
    return { status: res.status, json: (await res.json()) as any };
  };

  beforeAll(async () => {
    media = createServer((req, res) => {
      if (req.url === '/photo.jpg') res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '4' }).end('JPEG');
      else if (req.url === '/slow.jpg') setTimeout(() => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '4' }).end('JPEG'), 1_300);
      else if (req.url === '/doc.pdf') res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '3' }).end('PDF');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
    mediaUrl = `http://127.0.0.1:${(media.address() as { port: number }).port}`;
    sim = await startWhatsAppSim({
      numbers: [{ phoneNumberId: PN, wabaId: WABA, token: TOKEN, displayPhoneNumber: '5491150009999', throughput: 1000 }],
      templates: [IMAGE_URL, NAMED, COUPON, DOC, LOCATION],
      pairLimit: 1000,
    });
  });
  afterAll(async () => {
    await sim.close();
    await new Promise((r) => media.close(r));
  });
  beforeEach(() => sim.reset());

  it('accepts an image header by link and a url button suffix, as the reference shows them', async () => {
    const r = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/photo.jpg` }), body3, urlButton]));
    expect(r.status).toBe(200);
    expect(sim.messages()[0]!.components).toEqual([imageHeader({ link: `${mediaUrl}/photo.jpg` }), body3, urlButton]);
  });

  it('refuses a media header that is missing, of the wrong kind, or not downloadable', async () => {
    const missing = await send(sendOf('seasonal_promotion', [body3, urlButton]));
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ code: 132000, message: '(#132000) Number of parameters does not match the expected number of params' });
    const wrongKind = await send(sendOf('seasonal_promotion', [{ type: 'header', parameters: [{ type: 'video', video: { link: `${mediaUrl}/photo.jpg` } }] }, body3, urlButton]));
    expect(wrongKind.json.error).toMatchObject({ code: 132012, message: '(#132012) Parameter format does not match format in the created template' });
    const notFound = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/nothing.jpg` }), body3, urlButton]));
    expect(notFound.json.error).toMatchObject({ code: 131053, type: 'OAuthException' });
    expect(notFound.json.error.error_data.details).toContain('404');
    const pdfAsImage = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/doc.pdf` }), body3, urlButton]));
    expect(pdfAsImage.json.error.code).toBe(131053);
    const unknownId = await send(sendOf('seasonal_promotion', [imageHeader({ id: '999' }), body3, urlButton]));
    expect(unknownId.json.error.code).toBe(131053);
    expect(sim.messages()).toHaveLength(0);
  });

  it("counts a send against the number's throughput when it arrives, not when its media link is checked", async () => {
    sim.setThroughput(PN, 1);
    try {
      const first = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/photo.jpg` }), body3, urlButton]));
      expect(first.status).toBe(200);
      // Arrives well within the second of the first; its checks end after that second is over.
      const t = performance.now();
      const second = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/slow.jpg` }), body3, urlButton]));
      expect(performance.now() - t).toBeGreaterThan(1_000);
      expect(second.json.error).toMatchObject({ code: 130429 });
      expect(sim.messages()).toHaveLength(1);
    } finally {
      sim.setThroughput(PN, 1000);
    }
  });

  it('uploads media to /{phone-number-id}/media and accepts it by id', async () => {
    const up = await upload({ messaging_product: 'whatsapp', type: 'image/jpeg' }, { name: 'a.jpg', type: 'image/jpeg', bytes: Buffer.from('JPEGDATA') });
    expect(up.status).toBe(200);
    expect(up.json).toEqual({ id: expect.stringMatching(/^\d+$/) });
    const r = await send(sendOf('seasonal_promotion', [imageHeader({ id: up.json.id }), body3, urlButton]));
    expect(r.status).toBe(200);
  });

  it('refuses uploads without messaging_product, of an unsupported type, or over the limit', async () => {
    const bytes = Buffer.from('x');
    expect((await upload({ type: 'image/jpeg' }, { name: 'a.jpg', type: 'image/jpeg', bytes })).json.error.code).toBe(100);
    expect((await upload({ messaging_product: 'whatsapp', type: 'image/gif' }, { name: 'a.gif', type: 'image/gif', bytes })).json.error.code).toBe(131053);
    const big = await upload({ messaging_product: 'whatsapp', type: 'image/png' }, { name: 'b.png', type: 'image/png', bytes: Buffer.alloc(5 * 1024 * 1024 + 1) });
    expect(big.json.error.code).toBe(131053);
  });

  it('runs the Resumable Upload API: session, bytes, handle', async () => {
    const bytes = Buffer.from('JPEGSAMPLE');
    const session = await call(`${sim.graphUrl}/${sim.appId}/uploads?file_name=a.jpg&file_length=${bytes.length}&file_type=image/jpeg`, { token: TOKEN, method: 'POST' });
    expect(session.json).toEqual({ id: expect.stringMatching(/^upload:/) });
    const res = await fetch(`${sim.graphUrl}/${session.json.id}`, { method: 'POST', headers: { authorization: `OAuth ${TOKEN}`, file_offset: '0' }, body: bytes });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ h: expect.stringMatching(/^4::/) });
    const badType = await call(`${sim.graphUrl}/${sim.appId}/uploads?file_length=3&file_type=application/zip`, { token: TOKEN, method: 'POST' });
    expect(badType.json.error.code).toBe(100);
    const noToken = await call(`${sim.graphUrl}/${sim.appId}/uploads?file_length=3&file_type=image/png`, { method: 'POST' });
    expect(noToken.status).toBe(401);
  });

  it('checks named parameters by name, and refuses positional ones for a NAMED template', async () => {
    const named = (params: unknown[]) => send(sendOf('order_confirmation', [{ type: 'body', parameters: params }]));
    const ok = await named([{ type: 'text', parameter_name: 'first_name', text: 'Jessica' }, { type: 'text', parameter_name: 'order_number', text: '1' }]);
    expect(ok.status).toBe(200);
    const positional = await named([{ type: 'text', text: 'Jessica' }, { type: 'text', text: '1' }]);
    expect(positional.json.error.code).toBe(132012);
    const wrongName = await named([{ type: 'text', parameter_name: 'name', text: 'Jessica' }, { type: 'text', parameter_name: 'order_number', text: '1' }]);
    expect(wrongName.json.error.code).toBe(132000);
    const positionalTemplateNamedParam = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/photo.jpg` }),
      { type: 'body', parameters: [{ type: 'text', parameter_name: 'a', text: 'x' }, { type: 'text', text: 'y' }, { type: 'text', text: 'z' }] }, urlButton]));
    expect(positionalTemplateNamedParam.json.error.code).toBe(132012);
  });

  it('checks button index, sub_type and parameters against BUTTONS', async () => {
    const body = { type: 'body', parameters: [{ type: 'text', text: '25OFF' }] };
    const qr = { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'p1' }] };
    const code = { type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: '25OFF' }] };
    expect((await send(sendOf('coupon', [body, qr, code]))).status).toBe(200);
    const noCode = await send(sendOf('coupon', [body, qr]));
    expect(noCode.json.error).toMatchObject({ code: 131008 });
    expect(noCode.json.error.error_data.details).toBe('buttons: Button at index 1 of type CopyCode requires a parameter');
    const swapped = await send(sendOf('coupon', [body, { ...code, index: '0' }]));
    expect(swapped.json.error.code).toBe(131009);
    const outOfRange = await send(sendOf('coupon', [body, code, { ...qr, index: '5' }]));
    expect(outOfRange.json.error.code).toBe(131009);
    const textAsCoupon = await send(sendOf('coupon', [body, { ...code, parameters: [{ type: 'text', text: '25OFF' }] }]));
    expect(textAsCoupon.json.error.code).toBe(132012);
    const urlMissing = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/photo.jpg` }), body3]));
    expect(urlMissing.json.error.error_data.details).toBe('buttons: Button at index 0 of type Url requires a parameter');
    const phoneGivenParams = await send(sendOf('seasonal_promotion', [imageHeader({ link: `${mediaUrl}/photo.jpg` }), body3, urlButton,
      { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'x' }] }]));
    expect(phoneGivenParams.json.error.code).toBe(131009);
  });

  it('accepts a document with a filename and a location header; refuses a location without coordinates', async () => {
    const doc = await send(sendOf('invoice', [{ type: 'header', parameters: [{ type: 'document', document: { link: `${mediaUrl}/doc.pdf`, filename: 'factura.pdf' } }] }]));
    expect(doc.status).toBe(200);
    const loc = { type: 'location', location: { latitude: '37.48', longitude: '-122.14', name: 'Tienda', address: 'Calle 1' } };
    expect((await send(sendOf('pickup', [{ type: 'header', parameters: [loc] }]))).status).toBe(200);
    const noCoords = await send(sendOf('pickup', [{ type: 'header', parameters: [{ type: 'location', location: { name: 'x' } }] }]));
    expect(noCoords.json.error.code).toBe(131008);
  });

  it('stores templates with every component, parameter_format and quality score, and enforces button limits', async () => {
    const create = (body: unknown) => call(`${sim.graphUrl}/${WABA}/message_templates`, { token: TOKEN, body });
    const ok = await create({ name: 'with_buttons', language: 'es', category: 'MARKETING', components: [
      { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::x'] } },
      { type: 'BODY', text: 'Hola, mira esto.' },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Ver', url: 'https://x.example/{{1}}', example: ['https://x.example/a'] }, { type: 'PHONE_NUMBER', text: 'Llamar', phone_number: '5491100000000' }] }] });
    expect(ok.status).toBe(200);
    const threeUrls = await create({ name: 'too_many_urls', language: 'es', category: 'MARKETING', components: [
      { type: 'BODY', text: 'Hola, mira esto.' },
      { type: 'BUTTONS', buttons: [1, 2, 3].map((i) => ({ type: 'URL', text: `Ver ${i}`, url: 'https://x.example/' })) }] });
    expect(threeUrls.json.error.error_user_msg).toBe('At most 2 buttons of type URL.');
    const list = await call(`${sim.graphUrl}/${WABA}/message_templates?fields=name,components,parameter_format,quality_score&name=with_buttons`, { token: TOKEN });
    expect(list.json.data[0]).toMatchObject({ parameter_format: 'POSITIONAL', quality_score: { score: 'UNKNOWN' } });
    expect(list.json.data[0].components[2].buttons[1]).toEqual({ type: 'PHONE_NUMBER', text: 'Llamar', phone_number: '5491100000000' });
  });
});
