import type { Contact } from '@masivo/contract/contacts';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { TableHead } from '@/components/ui/table-head';
import { useIsPhone } from '@/components/ui/use-media-query';

const nameOf = (c: Contact) => c.name || [c.first_name, c.last_name].filter(Boolean).join(' ') || '-';

function Phone({ contact: c }: { contact: Contact }) {
  return <>{c.phone ?? (c.phone_raw ? <span className="text-amber-700">{c.phone_raw} (inválido)</span> : '-')}</>;
}

function Tags({ tags }: { tags: string[] }) {
  return (
    <div className="flex flex-wrap gap-1">
      {tags.map((t) => (
        <span key={t} className="rounded-full bg-gray-100 px-2 py-0.5 text-xs text-gray-700">
          {t}
        </span>
      ))}
    </div>
  );
}

export function ContactsTable({ contacts, emptyText }: { contacts: Contact[]; emptyText: string }) {
  const phone = useIsPhone();
  if (phone)
    return contacts.length === 0 ? (
      <p className="px-4 py-12 text-center text-gray-500">{emptyText}</p>
    ) : (
      <StackedList label="Contactos">
        {contacts.map((c) => (
          <StackedItem
            key={c.id}
            title={nameOf(c)}
            fields={[
              { label: 'Teléfono', value: <Phone contact={c} /> },
              { label: 'Email', value: c.email ?? '-' },
              ...(c.tags_array.length ? [{ label: 'Etiquetas', value: <Tags tags={c.tags_array} />, wide: true }] : []),
            ]}
          />
        ))}
      </StackedList>
    );
  return (
    <TableScroll label="Contactos">
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
                <td className="px-4 py-2.5 font-medium text-gray-900">{nameOf(c)}</td>
                <td className="px-4 py-2.5 whitespace-nowrap text-gray-700" title={c.phone_raw && c.phone_raw !== c.phone ? `Original: ${c.phone_raw}` : undefined}>
                  <Phone contact={c} />
                </td>
                <td className="px-4 py-2.5 text-gray-700">{c.email ?? '-'}</td>
                <td className="px-4 py-2.5">
                  <Tags tags={c.tags_array} />
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </TableScroll>
  );
}
