import { UNSCOPED_ROLES, type Role, type Scope } from '@masivo/contract/organizations';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';

/**
 * Which numbers and Kommo accounts a member may use. Nothing ticked means all of them (the
 * server's rule), said in words so nobody reads an empty list as "none". Owners and
 * administrators are never limited, so for them the boxes give way to a sentence.
 */
export function ScopeFields({ role, value, onChange }: { role: Role; value: Scope; onChange: (next: Scope) => void }) {
  const numbers = useWhatsAppAccounts();
  const kommo = useKommoAccounts();
  if (UNSCOPED_ROLES.includes(role))
    return <p className="text-sm text-gray-600">Propietarios y administradores acceden a todos los números y cuentas de Kommo.</p>;

  const toggle = (key: keyof Scope, id: number, on: boolean) => {
    const ids = new Set(value[key]);
    if (on) ids.add(id);
    else ids.delete(id);
    onChange({ ...value, [key]: [...ids].sort((a, b) => a - b) });
  };

  return (
    <div className="space-y-4">
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-gray-700">Números de WhatsApp</legend>
        <p className="text-xs text-gray-500">Sin marcar ninguno: todos los números.</p>
        {numbers.isLoading && <p className="text-sm text-gray-500">Cargando números...</p>}
        {numbers.isError && <p className="text-sm text-red-600">Error al cargar los números</p>}
        {numbers.data?.length === 0 && <p className="text-sm text-gray-500">La organización no tiene números.</p>}
        {numbers.data?.map((n) => (
          <label key={n.id} className="flex items-center gap-2 text-sm text-gray-800 max-lg:min-h-11">
            <input
              type="checkbox"
              checked={value.whatsapp_account_ids.includes(n.id)}
              onChange={(e) => toggle('whatsapp_account_ids', n.id, e.target.checked)}
              className="h-4 w-4 rounded border-gray-300"
            />
            {n.name} <span className="text-gray-500">({n.phone_number})</span>
          </label>
        ))}
      </fieldset>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-gray-700">Cuentas de Kommo</legend>
        <p className="text-xs text-gray-500">Sin marcar ninguna: todas las cuentas.</p>
        {kommo.isLoading && <p className="text-sm text-gray-500">Cargando cuentas...</p>}
        {kommo.isError && <p className="text-sm text-red-600">Error al cargar las cuentas</p>}
        {kommo.data?.length === 0 && <p className="text-sm text-gray-500">La organización no tiene cuentas de Kommo.</p>}
        {kommo.data?.map((k) => (
          <label key={k.id} className="flex items-center gap-2 text-sm text-gray-800 max-lg:min-h-11">
            <input
              type="checkbox"
              checked={value.kommo_account_ids.includes(k.id)}
              onChange={(e) => toggle('kommo_account_ids', k.id, e.target.checked)}
              className="h-4 w-4 rounded border-gray-300"
            />
            {k.subdomain}
          </label>
        ))}
      </fieldset>
    </div>
  );
}

/** A scope in one short phrase for the lists. */
export function scopeSummary(role: Role, scope: Scope): string {
  if (UNSCOPED_ROLES.includes(role)) return 'Todo';
  const parts: string[] = [];
  parts.push(scope.whatsapp_account_ids.length ? `${scope.whatsapp_account_ids.length} número(s)` : 'Todos los números');
  parts.push(scope.kommo_account_ids.length ? `${scope.kommo_account_ids.length} cuenta(s) de Kommo` : 'todas las cuentas de Kommo');
  return parts.join(' · ');
}
