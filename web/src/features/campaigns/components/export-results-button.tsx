import { Download } from 'lucide-react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { errorMessage } from '@/lib/api-client';
import { useExportResults, type ResultsFilter } from '../api/export-results';

/** "Exportar resultados": the recipients the table shows with its current filter, as CSV. */
export function ExportResultsButton({ campaignId, filter, disabled, className }: { campaignId: number; filter: ResultsFilter; disabled?: boolean; className?: string }) {
  const exporter = useExportResults();
  const onExport = () =>
    exporter.mutate(
      { id: campaignId, filter },
      {
        onSuccess: () => toast.success('Resultados descargados'),
        onError: (err) => toast.error(errorMessage(err, 'Error al exportar los resultados')),
      },
    );
  return (
    <Button variant="secondary" size="sm" className={className} onClick={onExport} disabled={disabled || exporter.isPending}>
      <Download className="h-4 w-4" aria-hidden="true" />
      {exporter.isPending ? 'Exportando…' : 'Exportar resultados'}
    </Button>
  );
}
