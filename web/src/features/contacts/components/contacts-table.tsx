import type { Contact } from '@masivo/contract/contacts';
import { TableHead } from '../../../components/ui/table-head';

export function ContactsTable({ contacts, emptyText }: { contacts: Contact[]; emptyText: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full divide-y divide-gray-200 text-sm">
        <TableHead columns={['Nombre', 'Teléfono', 'Email', 'Etiquetas']} dense />
        <tbody className="divide-y divide-gray-100 bg-white">
          {contacts.length === 0 ? (
            <tr>
              <td colSpan={4} className="px-4 py-12 text-center text-gray-500">
                {emptyText}
              </td>
            </tr>
          ) : (
            contacts.map((c) => (
              <tr key={c.id} className="hover:bg-gray-50">
                <td className="px-4 py-2.5 font-medium text-gray-900">{c.name || [c.first_name, c.last_name].filter(Boolean).join(' ') || '-'}</td>
                <td className="px-4 py-2.5 whitespace-nowrap text-gray-700" title={c.phone_raw && c.phone_raw !== c.phone ? `Original: ${c.phone_raw}` : undefined}>
                  {c.phone ?? (c.phone_raw ? <span className="text-amber-700">{c.phone_raw} (inválido)</span> : '-')}
                </td>
                <td className="px-4 py-2.5 text-gray-700">{c.email ?? '-'}</td>
                <td className="px-4 py-2.5">
                  <div className="flex flex-wrap gap-1">
                    {c.tags_array.map((t) => (
                      <span key={t} className="rounded-full bg-gray-100 px-2 py-0.5 text-xs text-gray-700">
                        {t}
                      </span>
                    ))}
                  </div>
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
