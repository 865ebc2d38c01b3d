import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { useQueries } from '@tanstack/react-query';
import { accountTemplatesQueryOptions, useAccountTemplates } from '@/api/templates';

const portfolioOf = (a: WhatsAppAccount) => a.business_portfolio_id ?? a.business_account_id;

/**
 * «Enviar también desde»: more numbers of the chosen number's portfolio for the same
 * campaign. Each person keeps one number (the one they wrote to or were last sent from, else one
 * chosen by each number's rate); the campaign reaches the numbers' rates added up. Only numbers of
 * the same portfolio are offered, and only those holding the template approved can be ticked.
 * A group of checkboxes with its legend: the keyboard and screen readers handle it natively.
 */
export function SenderNumbersField({
  accounts,
  primaryId,
  templateId,
  value,
  onChange,
}: {
  accounts: WhatsAppAccount[];
  primaryId: number;
  templateId: number;
  value: number[];
  onChange: (ids: number[]) => void;
}) {
  const primary = accounts.find((a) => a.id === primaryId);
  const template = useAccountTemplates(primaryId).data?.find((t) => t.id === templateId);
  const portfolio = primary ? portfolioOf(primary) : null;
  const candidates = portfolio ? accounts.filter((a) => a.id !== primaryId && portfolioOf(a) === portfolio) : [];
  const copies = useQueries({ queries: candidates.map((a) => accountTemplatesQueryOptions(a.id)) });
  if (!primary || !template || !candidates.length) return null;
  const rate = (a: WhatsAppAccount) => a.effective_rate_per_second ?? a.rate_per_second;
  const total = rate(primary) + candidates.filter((a) => value.includes(a.id)).reduce((s, a) => s + rate(a), 0);
  return (
    <fieldset className="mt-4 rounded-lg border border-gray-200 p-4" aria-describedby="sender-numbers-hint">
      <legend className="px-1 text-sm font-medium text-gray-900">Enviar también desde</legend>
      <p id="sender-numbers-hint" className="mb-3 text-sm text-gray-600">
        Números del mismo portafolio con la plantilla «{template.name}» ({template.language}) aprobada. Cada persona recibe siempre desde
        el mismo número: al que escribió o desde el que se le envió la última vez; si no, uno elegido según el ritmo de cada número.
      </p>
      <ul className="space-y-2">
        {candidates.map((a, i) => {
          const copy = copies[i]?.data?.find((t) => t.name === template.name && t.language === template.language);
          const loading = copies[i]?.isPending;
          const approved = copy?.status === 'approved';
          const red = (a.quality_rating ?? '').toUpperCase() === 'RED';
          const why = loading ? 'Revisando la plantilla…' : !approved ? 'Sin la plantilla aprobada' : !a.is_active ? 'Número inactivo' : red ? 'Calidad baja (RED)' : null;
          const id = `sender-number-${a.id}`;
          return (
            <li key={a.id} className="flex items-start gap-3">
              <input
                id={id}
                type="checkbox"
                className="mt-1 h-4 w-4 rounded border-gray-300 text-blue-600 focus:ring-2 focus:ring-blue-500"
                checked={value.includes(a.id)}
                disabled={!approved || loading}
                aria-describedby={why ? `${id}-why` : undefined}
                onChange={(e) => onChange(e.target.checked ? [...value, a.id] : value.filter((v) => v !== a.id))}
              />
              <label htmlFor={id} className="min-w-0 text-sm break-words text-gray-900">
                {a.name} ({a.display_phone_number || a.phone_number}) · {rate(a)} msg/s
                {why && (
                  <span id={`${id}-why`} className={`block text-xs ${approved ? 'text-amber-700' : 'text-gray-500'}`}>
                    {why}
                  </span>
                )}
              </label>
            </li>
          );
        })}
      </ul>
      {value.length > 0 && (
        <p className="mt-3 text-sm text-gray-700" aria-live="polite">
          {value.length + 1} números · hasta {total} mensajes por segundo entre todos.
        </p>
      )}
    </fieldset>
  );
}
