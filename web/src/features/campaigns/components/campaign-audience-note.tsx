import type { Campaign } from '@masivo/contract/campaigns';
import { ListChecks } from 'lucide-react';
import { Link } from 'react-router';
import { formatNumber } from '@/lib/format';

/**
 * A follow-up's audience is a frozen list of contacts of another campaign, not a filter: the
 * screen says so, where it came from, and that filters cannot replace it. A campaign with
 * explicit recipients (phones or BSUIDs given through the API) says that instead: it has no
 * Kommo account.
 */
export function CampaignAudienceNote({ campaign: c }: { campaign: Campaign }) {
  if (c.audience_kind === 'explicit') return <ExplicitAudienceNote campaign={c} />;
  const from = c.follow_up_of;
  if (c.audience_kind !== 'contact_list' || !from) return null;
  const source = `«${from.campaign_name}»`;
  return (
    <section aria-label="Audiencia" data-testid="campaign-audience" className="flex gap-3 rounded-md border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900">
      <ListChecks className="mt-0.5 h-5 w-5 shrink-0 text-indigo-600" aria-hidden="true" />
      <div className="min-w-0 space-y-1">
        <p>
          <span className="font-medium">Audiencia: lista fija de {formatNumber(c.total_recipients)} {c.total_recipients === 1 ? 'contacto' : 'contactos'}</span> de la
          campaña{' '}
          {from.campaign_id !== null ? (
            <Link to={`/campaigns/${from.campaign_id}`} className="font-medium text-indigo-700 underline hover:text-indigo-900">
              {source}
            </Link>
          ) : (
            source
          )}{' '}
          ({from.group_label}).
        </p>
        <p className="text-indigo-800">
          La lista no se reemplaza por filtros. Al iniciar se excluyen igualmente la lista negra, las bajas, los duplicados y el tope de frecuencia.
        </p>
      </div>
    </section>
  );
}

function ExplicitAudienceNote({ campaign: c }: { campaign: Campaign }) {
  return (
    <section aria-label="Audiencia" data-testid="campaign-audience" className="flex gap-3 rounded-md border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm text-indigo-900">
      <ListChecks className="mt-0.5 h-5 w-5 shrink-0 text-indigo-600" aria-hidden="true" />
      <div className="min-w-0 space-y-1">
        <p>
          <span className="font-medium">Destinatarios: lista explícita ({formatNumber(c.total_recipients)})</span>, cargada por la API con
          los parámetros de cada destinatario; sin cuenta Kommo ni filtros.
        </p>
        <p className="text-indigo-800">
          Al iniciar se excluyen igualmente la lista negra, las bajas, los duplicados y el tope de frecuencia.
        </p>
      </div>
    </section>
  );
}
