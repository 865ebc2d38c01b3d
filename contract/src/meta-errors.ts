/**
 * What Meta's WhatsApp error codes mean, in Spanish: the one home of these descriptions, read by
 * the failures chart of a campaign (server) and by the pause reasons of the sender
 * (integrations/whatsapp/send-errors.ts) where they say the same thing. Meanings follow Meta's
 * error-codes reference for the Cloud API (and 470, the on-premises API's code for a message
 * outside the 24-hour window).
 */
export const META_ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  0: 'El token de acceso de WhatsApp no es válido o expiró',
  190: 'El token de acceso de WhatsApp no es válido o expiró',
  368: 'Meta bloqueó temporalmente la cuenta por infringir sus políticas',
  470: 'Pasaron más de 24 horas desde el último mensaje de la persona: solo se puede enviar una plantilla',
  130429: 'Se alcanzó el límite de mensajes por segundo del número',
  130472: 'La persona forma parte de un experimento de Meta sobre mensajes de marketing',
  130497: 'La cuenta no puede enviar mensajes a personas de ese país',
  131000: 'Error desconocido de Meta',
  131005: 'Meta denegó el acceso a esta cuenta de WhatsApp',
  131008: 'Falta un parámetro obligatorio en el mensaje',
  131009: 'Un valor del mensaje no es válido',
  131016: 'El servicio de Meta no estaba disponible',
  131021: 'El destinatario es el mismo número que envía',
  131026: 'Mensaje no entregable: el número no tiene WhatsApp, no aceptó los términos o usa una versión antigua',
  131031: 'Meta bloqueó o restringió la cuenta de WhatsApp Business',
  131042: 'La cuenta de WhatsApp Business tiene un problema de pago o de elegibilidad',
  131047: 'Pasaron más de 24 horas desde la última respuesta de la persona: solo se puede enviar una plantilla',
  131048: 'Meta limitó los envíos por la calidad del número (posible spam)',
  131049: 'Meta no lo entregó para cuidar la experiencia de la persona (límite de marketing por usuario)',
  131050: 'La persona dejó de recibir mensajes de marketing de esta empresa',
  131051: 'Tipo de mensaje no admitido',
  131053: 'No se pudo subir o descargar el archivo multimedia del mensaje',
  131056: 'Demasiados mensajes seguidos a la misma persona (límite por par empresa-usuario)',
  131057: 'La cuenta estaba en mantenimiento',
  132000: 'La cantidad de variables no coincide con la plantilla',
  132001: 'La plantilla no existe en ese idioma o no está aprobada en Meta',
  132005: 'El texto de la plantilla con sus variables es demasiado largo',
  132007: 'El contenido infringe las reglas de formato de la plantilla',
  132012: 'El formato de las variables no coincide con la plantilla',
  132015: 'Meta pausó la plantilla por su baja calidad',
  132016: 'Meta deshabilitó la plantilla de forma permanente',
  133010: 'El número de teléfono no está registrado en la API de WhatsApp',
};

/** Failures Meta gave no code for (a network error, an answer without a Graph error body). */
export const NO_CODE_DESCRIPTION = 'Sin código de Meta';

/** The Spanish description of a code, or null when the code is not in the table. */
export function metaErrorDescription(code: number | null): string | null {
  if (code === null) return NO_CODE_DESCRIPTION;
  return META_ERROR_DESCRIPTIONS[code] ?? null;
}
