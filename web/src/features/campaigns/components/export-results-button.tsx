import { Download } from 'lucide-react';
import toast from 'react-hot-toast';
import { CsvFormatSelect, useCsvFormat } from '@/components/csv-format-select';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { errorMessage } from '@/lib/api-client';
import { useExportResults, type ResultsFilter } from '../api/export-results';
import { Can } from '@/lib/use-member';

/** "Exportar resultados": the recipients the table shows with its current filter, as CSV in the chosen format. */
export function ExportResultsButton({ campaignId, filter, disabled, className }: { campaignId: number; filter: ResultsFilter; disabled?: boolean; className?: string }) {
  const exporter = useExportResults();
  const [format, setFormat] = useCsvFormat();
  const onExport = () =>
    exporter.mutate(
      { id: campaignId, filter, format },
      {
        onSuccess: () => toast.success('Resultados descargados'),
        onError: (err) => toast.error(errorMessage(err, 'Error al exportar los resultados')),
      },
    );
  return (
    // On a phone the choice and the button take a row each, so neither is cut short.
    <Can permission="contacts.export">
      <div className={cn('flex items-center gap-2 max-sm:w-full max-sm:flex-col max-sm:items-stretch', className)}>
        <CsvFormatSelect value={format} onChange={setFormat} />
        <Button variant="secondary" size="sm" className="whitespace-nowrap" onClick={onExport} disabled={disabled || exporter.isPending}>
          <Download className="h-4 w-4" aria-hidden="true" />
          {exporter.isPending ? 'Exportando…' : 'Exportar resultados'}
        </Button>
      </div>
    </Can>
  );
}
