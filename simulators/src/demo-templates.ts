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
  {
    name: 'promo_imagen', language: 'es', category: 'MARKETING',
    components: [
      { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2UvcG5n:demo'] } },
      { type: 'BODY', text: 'Hola {{1}}, conoce la nueva colección con envío gratis.', example: { body_text: [['Ana']] } },
      { type: 'FOOTER', text: 'Responde BAJA para no recibir más mensajes' },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Ver catálogo', url: 'https://tienda.example.com/catalogo/{{1}}', example: ['https://tienda.example.com/catalogo/primavera'] }] },
    ],
  },
  {
    name: 'confirmacion_pedido', language: 'es', category: 'UTILITY', parameter_format: 'NAMED',
    components: [{
      type: 'BODY', text: 'Hola {{nombre}}, tu pedido del plan {{plan}} está confirmado.',
      example: { body_text_named_params: [{ param_name: 'nombre', example: 'Ana' }, { param_name: 'plan', example: 'Pro' }] },
    }],
  },
  {
    name: 'cupon_descuento', language: 'es', category: 'MARKETING',
    components: [
      { type: 'BODY', text: 'Hola {{1}}, usa tu cupón para obtener 15% de descuento.', example: { body_text: [['Ana']] } },
      { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'No me interesa' }, { type: 'COPY_CODE', example: 'MASIVO15' }] },
    ],
  },
  {
    name: 'novedades_temporada', language: 'es', category: 'MARKETING',
    components: [
      { type: 'BODY', text: 'Hola {{1}}, llegó la nueva temporada. ¿Quieres que te contemos más?', example: { body_text: [['Ana']] } },
      {
        type: 'BUTTONS',
        buttons: [{ type: 'QUICK_REPLY', text: 'Me interesa' }, { type: 'QUICK_REPLY', text: 'Más información' }, { type: 'QUICK_REPLY', text: 'Ahora no' }],
      },
    ],
  },
];

/** A 1×1 PNG the demo uploads to the simulator as the image header's media. */
export const DEMO_HEADER_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
