// Approved templates the CLI preloads, so a demo can send right away.
import type { TemplateInput } from './whatsapp/index';

export const DEMO_TEMPLATES: Array<Omit<TemplateInput, 'wabaId'>> = [
  {
    name: 'bienvenida', language: 'es', category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Hola {{1}}, gracias por elegirnos.', example: { body_text: [['Ana']] } }],
  },
  {
    name: 'promo_mensual', language: 'es', category: 'MARKETING',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Oferta {{1}}', example: { header_text: ['de marzo'] } },
      { type: 'BODY', text: 'Hola {{1}}, este mes tu plan {{2}} tiene 20% de descuento.', example: { body_text: [['Ana', 'Pro']] } },
      { type: 'FOOTER', text: 'Responde BAJA para no recibir más mensajes' },
    ],
  },
  {
    name: 'recordatorio_pago', language: 'es', category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Te recordamos que tu pago vence pronto. Gracias por tu confianza.' }],
  },
];
