import {
  PRICING_CATEGORIES,
  PRICING_CATEGORY_LABELS,
  RATE_CARD_MAX_CHARS,
  type RateCard,
  type RateCardLineError,
  type RateCardMarket,
} from '@masivo/contract/pricing';
import { Download, RotateCcw, Upload } from 'lucide-react';
import { useId, useRef, useState, type ChangeEvent } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { TableHead } from '@/components/ui/table-head';
import { useIsPhone } from '@/components/ui/use-media-query';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { downloadRateCardCsv, uploadLineErrors, useRateCard, useResetRateCard, useUploadRateCard } from '../api/rate-card';
import { Can } from '@/lib/use-member';

const USD = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 4, maximumFractionDigits: 6 });

/** "US$ 0,0618"; null is "sin tarifa". */
export const formatRate = (v: number | null) => (v === null ? 'sin tarifa' : `US$ ${USD.format(v)}`);

/** A calendar day (YYYY-MM-DD) as 01/07/2025, without a time zone shifting it. */
export const formatDay = (day: string | null) => {
  if (!day) return '-';
  const [y, m, d] = day.split('-');
  return `${d}/${m}/${y}`;
};

/** A rate's source: its web address as a link (only http/https), the rest as text. */
function Source({ source }: { source: string | null }) {
  if (!source) return <span className="text-gray-500">sin fuente</span>;
  const url = /^https?:\/\/[^\s]+/.exec(source)?.[0];
  if (!url) return <span className="break-words">{source}</span>;
  let host = url;
  try {
    host = new URL(url).hostname;
  } catch {
    /* keep the address as typed */
  }
  return (
    <a href={url} target="_blank" rel="noreferrer noopener" className="break-all text-blue-700 underline hover:text-blue-900" title={source}>
      {host}
    </a>
  );
}

/** One category of one market: the rate in force today, since when, and where it comes from. */
function RateCell({ rate }: { rate: RateCardMarket['current']['marketing'] }) {
  if (!rate) return <span className="text-gray-500">sin tarifa</span>;
  return (
    <div className="space-y-0.5">
      <div className={rate.usd_per_message === null ? 'text-gray-500' : 'font-medium text-gray-900'}>{formatRate(rate.usd_per_message)}</div>
      <div className="text-xs text-gray-600">desde {formatDay(rate.effective_from)}</div>
      <div className="text-xs">
        <Source source={rate.source} />
        {rate.source_date && <span className="text-gray-600"> · {formatDay(rate.source_date)}</span>}
      </div>
    </div>
  );
}

function MarketsTable({ card }: { card: RateCard }) {
  const phone = useIsPhone();
  if (phone)
    return (
      <StackedList label="Tarifas por país">
        {card.markets.map((m) => (
          <StackedItem
            key={m.market}
            title={m.label}
            aside={<span className="font-mono text-xs text-gray-600">{m.market}</span>}
            fields={PRICING_CATEGORIES.map((c) => ({ label: PRICING_CATEGORY_LABELS[c], value: <RateCell rate={m.current[c]} />, wide: true }))}
          />
        ))}
      </StackedList>
    );
  return (
    <TableScroll label="Tarifas por país">
      <table className="min-w-full divide-y divide-gray-200 text-sm">
        <TableHead columns={['País o región', ...PRICING_CATEGORIES.map((c) => PRICING_CATEGORY_LABELS[c])]} dense />
        <tbody className="divide-y divide-gray-100 bg-white">
          {card.markets.map((m) => (
            <tr key={m.market}>
              <th scope="row" className="px-4 py-2.5 text-left align-top font-medium whitespace-nowrap text-gray-900">
                {m.label} <span className="font-mono text-xs font-normal text-gray-600">{m.market}</span>
              </th>
              {PRICING_CATEGORIES.map((c) => (
                <td key={c} className="px-4 py-2.5 align-top">
                  <RateCell rate={m.current[c]} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function History({ card }: { card: RateCard }) {
  return (
    <details className="group">
      <summary className="cursor-pointer px-4 py-3 text-sm font-medium text-gray-900">Todas las tarifas con su fecha ({card.rates.length})</summary>
      <TableScroll label="Historial de tarifas">
        <table className="min-w-full divide-y divide-gray-200 text-sm">
          <TableHead columns={['País o región', 'Categoría', 'Vigente desde', 'USD por mensaje', 'Fuente']} dense />
          <tbody className="divide-y divide-gray-100 bg-white">
            {card.rates.map((r) => (
              <tr key={`${r.category}-${r.market}-${r.effective_from}`}>
                <td className="px-4 py-2 whitespace-nowrap">{r.label}</td>
                <td className="px-4 py-2 whitespace-nowrap">{PRICING_CATEGORY_LABELS[r.category]}</td>
                <td className="px-4 py-2 whitespace-nowrap">{formatDay(r.effective_from)}</td>
                <td className="px-4 py-2 whitespace-nowrap">{formatRate(r.usd_per_message)}</td>
                <td className="px-4 py-2">
                  <Source source={r.source} />
                  {r.source_date && <span className="text-gray-600"> · {formatDay(r.source_date)}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}

/** A chosen file's text (UTF-8; a BOM is left for the server to drop). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error ?? new Error('No se pudo leer el archivo'));
    reader.readAsText(file, 'utf-8');
  });
}

function UploadErrors({ summary, errors }: { summary: string; errors: RateCardLineError[] }) {
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-800">
      <p className="font-medium">{summary}</p>
      {errors.length > 0 && (
        <ul className="mt-2 list-disc space-y-1 pl-5">
          {errors.map((e) => (
            <li key={`${e.line}-${e.message}`}>{e.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function PricingPage() {
  const card = useRateCard();
  const upload = useUploadRateCard();
  const reset = useResetRateCard();
  const [failure, setFailure] = useState<{ summary: string; errors: RateCardLineError[] } | null>(null);
  const [downloading, setDownloading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const helpId = useId();

  const onDownload = async () => {
    setDownloading(true);
    try {
      await downloadRateCardCsv();
    } catch (err) {
      toast.error(errorMessage(err, 'No se pudo descargar la tarifa'));
    } finally {
      setDownloading(false);
    }
  };

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setFailure(null);
    if (file.size > RATE_CARD_MAX_CHARS) {
      setFailure({ summary: 'El archivo es demasiado grande (máximo 512 KB); no se aplicó ningún cambio.', errors: [] });
      return;
    }
    const csv = await readText(file);
    upload.mutate(csv, {
      onSuccess: (c) => toast.success(`Tarifa actualizada: ${c.rates.length} ${c.rates.length === 1 ? 'tarifa' : 'tarifas'}`),
      onError: (err) => setFailure({ summary: errorMessage(err, 'No se pudo subir la tarifa'), errors: uploadLineErrors(err) }),
    });
  };

  const onReset = () => {
    if (!window.confirm('¿Volver a la tarifa incluida en la consola? Se borra la tarifa que subiste.')) return;
    setFailure(null);
    reset.mutate(undefined, {
      onSuccess: () => toast.success('Se restauró la tarifa incluida en la consola'),
      onError: (err) => toast.error(errorMessage(err, 'No se pudo restaurar la tarifa')),
    });
  };

  return (
    <div className="space-y-4">
      <PageHeader
        title="Tarifas"
        description="Lo que Meta cobra por cada mensaje de plantilla entregado, en USD, por país y categoría. Con ellas se estima el costo de cada campaña."
        actions={
          <>
            <Button variant="secondary" onClick={onDownload} disabled={downloading || !card.data}>
              <Download className="h-4 w-4" aria-hidden="true" />
              Descargar CSV
            </Button>
            <Can permission="connections.manage">
              <Button onClick={() => fileInput.current?.click()} disabled={upload.isPending} aria-describedby={helpId}>
                <Upload className="h-4 w-4" aria-hidden="true" />
                {upload.isPending ? 'Subiendo...' : 'Subir CSV'}
              </Button>
            </Can>
            <input
              ref={fileInput}
              type="file"
              accept=".csv,text/csv"
              className="sr-only"
              tabIndex={-1}
              aria-label="Archivo CSV de tarifas"
              onChange={onFile}
            />
          </>
        }
      />
      {failure && <UploadErrors summary={failure.summary} errors={failure.errors} />}
      <Card className="space-y-2 p-4 text-sm text-gray-700">
        {card.data && (
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p>
              {card.data.is_default
                ? 'Usas la tarifa incluida en la consola.'
                : `Usas tu propia tarifa, subida el ${formatDateTime(card.data.updated_at)}.`}{' '}
              Tarifas vigentes al {formatDay(card.data.today)}.
            </p>
            {!card.data.is_default && (
              <Button variant="ghost" size="sm" onClick={onReset} disabled={reset.isPending}>
                <RotateCcw className="h-4 w-4" aria-hidden="true" />
                Restaurar la tarifa incluida
              </Button>
            )}
          </div>
        )}
        <p id={helpId} className="text-gray-600">
          El CSV tiene las columnas <code className="break-all">categoria,pais,vigente_desde,usd_por_mensaje,fuente,fecha_fuente</code>: categoría{' '}
          <code>marketing</code>, <code>utility</code> o <code>authentication</code>; país con su código ISO (<code>AR</code>) o{' '}
          <code>resto_latam</code>; fechas AAAA-MM-DD; <code>usd_por_mensaje</code> vacío significa «sin tarifa» desde esa fecha. Al subir un
          archivo se reemplaza toda tu tarifa; si alguna línea tiene un error no se aplica ningún cambio.
        </p>
        <p className="text-gray-600">
          Un país sin tarifa propia usa la de su región (por ejemplo, Uruguay usa «Resto de América Latina»). Si no hay ninguna, el costo se
          muestra como «sin tarifa» y no se suma al estimado.
        </p>
      </Card>
      <Card className="overflow-hidden">
        {card.isLoading ? (
          <Spinner className="py-12" />
        ) : card.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(card.error, 'Error al cargar las tarifas')}
          </p>
        ) : card.data ? (
          <>
            <MarketsTable card={card.data} />
            <History card={card.data} />
          </>
        ) : null}
      </Card>
    </div>
  );
}
