// Word lists for realistic Spanish-speaking contacts. Accents are deliberate: the product must
// search, sort and render them correctly.

export const FEMALE_NAMES = [
  'María', 'Lucía', 'Sofía', 'Valentina', 'Camila', 'Martina', 'Isabella', 'Daniela', 'Gabriela',
  'Ana', 'Paula', 'Julieta', 'Florencia', 'Agustina', 'Carolina', 'Natalia', 'Fernanda', 'Ximena',
  'Guadalupe', 'Mariana', 'Andrea', 'Verónica', 'Mónica', 'Inés', 'Belén', 'Rocío', 'Araceli',
  'Pilar', 'Nuria', 'Ainhoa', 'Leire', 'Begoña', 'Constanza', 'Javiera', 'Catalina', 'Antonella',
  'Micaela', 'Milagros', 'Luz Marina', 'María José', 'Ana Belén', 'Soledad', 'Graciela', 'Beatriz',
  'Consuelo', 'Dolores', 'Itzel', 'Yesenia', 'Brenda', 'Noemí', 'Raquel', 'Lorena', 'Alejandra',
] as const;

export const MALE_NAMES = [
  'José', 'Juan', 'Luis', 'Carlos', 'Jorge', 'Miguel', 'Andrés', 'Sebastián', 'Matías', 'Santiago',
  'Nicolás', 'Martín', 'Joaquín', 'Tomás', 'Diego', 'Alejandro', 'Fernando', 'Ramón', 'Raúl',
  'Óscar', 'Héctor', 'Iván', 'Rubén', 'Germán', 'Julián', 'Agustín', 'Facundo', 'Gonzalo',
  'Emiliano', 'Maximiliano', 'Íñigo', 'Iker', 'Unai', 'Álvaro', 'Jesús', 'Ángel', 'Víctor',
  'Cristóbal', 'Benjamín', 'Vicente', 'Felipe', 'Juan Pablo', 'José Luis', 'Juan Carlos',
  'Francisco', 'Eduardo', 'Ricardo', 'Mauricio', 'Esteban', 'Hernán', 'Gustavo', 'Pablo',
] as const;

export const LAST_NAMES = [
  'García', 'Rodríguez', 'González', 'Fernández', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez',
  'Martín', 'Jiménez', 'Ruiz', 'Hernández', 'Díaz', 'Moreno', 'Muñoz', 'Álvarez', 'Romero',
  'Alonso', 'Gutiérrez', 'Navarro', 'Torres', 'Domínguez', 'Vázquez', 'Ramos', 'Gil', 'Ramírez',
  'Serrano', 'Blanco', 'Suárez', 'Molina', 'Morales', 'Ortega', 'Delgado', 'Castro', 'Ortiz',
  'Rubio', 'Marín', 'Sanz', 'Núñez', 'Iglesias', 'Medina', 'Garrido', 'Cortés', 'Castillo',
  'Santos', 'Lozano', 'Guerrero', 'Cano', 'Prieto', 'Méndez', 'Cruz', 'Calvo', 'Gallego', 'Vidal',
  'León', 'Márquez', 'Herrera', 'Peña', 'Flores', 'Cabrera', 'Campos', 'Vega', 'Fuentes',
  'Carrasco', 'Díez', 'Caballero', 'Reyes', 'Aguilar', 'Pascual', 'Santana', 'Hidalgo', 'Montes',
  'Ibáñez', 'Ferrer', 'Durán', 'Vargas', 'Benítez', 'Mora', 'Arias', 'Rojas', 'Quintero', 'Zúñiga',
  'Echeverría', 'Villalobos', 'Sepúlveda', 'Araya', 'Fuenzalida', 'Quispe', 'Ocampo', 'Restrepo',
] as const;

export type Country = 'AR' | 'MX' | 'CO' | 'ES' | 'CL';

export const COUNTRY_WEIGHTS: ReadonlyArray<readonly [Country, number]> = [
  ['AR', 30], ['MX', 30], ['CO', 15], ['ES', 10], ['CL', 15],
];

export const CITIES: Record<Country, readonly string[]> = {
  AR: ['Buenos Aires', 'Córdoba', 'Rosario', 'Mendoza', 'La Plata', 'Mar del Plata', 'San Miguel de Tucumán', 'Neuquén', 'Bahía Blanca', 'Salta'],
  MX: ['Ciudad de México', 'Guadalajara', 'Monterrey', 'Puebla', 'Querétaro', 'Mérida', 'Tijuana', 'León', 'Cancún', 'San Luis Potosí'],
  CO: ['Bogotá', 'Medellín', 'Cali', 'Barranquilla', 'Cartagena', 'Bucaramanga', 'Pereira', 'Santa Marta', 'Cúcuta', 'Manizales'],
  ES: ['Madrid', 'Barcelona', 'Valencia', 'Sevilla', 'Zaragoza', 'Málaga', 'Bilbao', 'A Coruña', 'Córdoba', 'San Sebastián'],
  CL: ['Santiago', 'Valparaíso', 'Viña del Mar', 'Concepción', 'Antofagasta', 'Temuco', 'La Serena', 'Rancagua', 'Puerto Montt', 'Iquique'],
};

export const PLANS = ['Básico', 'Pro', 'Empresa'] as const;
export type Plan = (typeof PLANS)[number];
export const PLAN_WEIGHTS: ReadonlyArray<readonly [Plan, number]> = [['Básico', 50], ['Pro', 35], ['Empresa', 15]];

export const ORIGINS = [
  'Facebook', 'Instagram', 'Referido', 'Web', 'Feria', 'WhatsApp', 'Google Ads', 'Llamada', 'Evento', 'TikTok',
] as const;

/** Pool the per-seed tag set (20–50 tags) is drawn from. Must hold at least 50 names. */
export const TAG_POOL = [
  'cliente', 'vip', 'black_friday_2025', 'newsletter', 'interesado', 'prospecto', 'lead_frio',
  'lead_caliente', 'recompra', 'moroso', 'al_dia', 'mayorista', 'minorista', 'distribuidor',
  'evento_2025', 'feria_2024', 'webinar', 'promo_verano', 'promo_invierno', 'cyber_monday',
  'hot_sale', 'buen_fin', 'navidad', 'dia_de_la_madre', 'san_valentin', 'regreso_a_clases',
  'encuesta', 'reclamo', 'soporte', 'baja_solicitada', 'no_contactar', 'whatsapp_ok', 'referido',
  'embajador', 'inactivo', 'reactivar', 'nuevo', 'fidelizado', 'premium', 'gratuito', 'prueba',
  'demo_agendada', 'cotizacion', 'pago_pendiente', 'factura', 'envio_gratis', 'carrito_abandonado',
  'postventa', 'instagram', 'facebook', 'tiktok', 'google', 'tienda_fisica', 'zona_norte',
  'zona_sur', 'empresa', 'particular', 'estudiante', 'jubilado', 'capacitación', 'suscripción',
] as const;

export const EMAIL_DOMAINS: ReadonlyArray<readonly [string, number]> = [
  ['gmail.com', 50], ['hotmail.com', 15], ['outlook.com', 8], ['yahoo.com', 5], ['yahoo.com.ar', 3],
  ['hotmail.es', 4], ['live.com.mx', 3], ['icloud.com', 4], ['empresa.com', 2], ['correo.cl', 2],
  ['une.net.co', 2], ['telefonica.es', 2],
];

/** Typical junk typed into a phone field. */
export const INVALID_PHONES = ['123', 'n/a', '-', '0', '12345', 'sin número', '+54 11', '555-12', 'xxx', '00000'] as const;
