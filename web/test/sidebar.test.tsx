import { describe, expect, it } from 'vitest';
import { isActive, NAV_ITEMS } from '../src/app/layout/sidebar';

describe('sidebar', () => {
  it('lists the spec labels in order', () => {
    expect(NAV_ITEMS.map((i) => i.label)).toEqual([
      'Dashboard',
      'Cuentas Kommo',
      'Cuentas WhatsApp',
      'Contactos',
      'Campañas',
      'Templates',
      'Blacklist',
      'Tarifas',
      'Organización',
      'Registro de actividad',
      'Claves de API',
      'Webhooks',
    ]);
  });

  it('highlights on equal path or prefix', () => {
    expect(isActive('/campaigns', '/campaigns')).toBe(true);
    expect(isActive('/campaigns/12', '/campaigns')).toBe(true);
    expect(isActive('/contacts', '/campaigns')).toBe(false);
  });
});
