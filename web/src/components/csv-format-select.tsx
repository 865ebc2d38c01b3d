import { CSV_FORMATS, type CsvFormat } from '@masivo/contract/common';
import { useCallback, useState } from 'react';
import { cn } from '@/components/ui/cn';

export const CSV_FORMAT_LABELS: Record<CsvFormat, string> = {
  csv: 'CSV',
  csv_es: 'CSV (Excel en español)',
};

const STORAGE_KEY = 'csvFormat';

function storedFormat(): CsvFormat {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return (CSV_FORMATS as readonly string[]).includes(v ?? '') ? (v as CsvFormat) : 'csv';
  } catch {
    return 'csv';
  }
}

/**
 * The CSV format the person downloads in, remembered in this browser: whoever opens the files in
 * a Spanish Excel picks «CSV (Excel en español)» once, for the contacts and the results alike.
 */
export function useCsvFormat(): [CsvFormat, (next: CsvFormat) => void] {
  const [format, setFormat] = useState<CsvFormat>(storedFormat);
  const choose = useCallback((next: CsvFormat) => {
    setFormat(next);
    try {
      localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Private mode without storage: the choice lasts while the screen is open.
    }
  }, []);
  return [format, choose];
}

/** «CSV» (comma, decimal point) or «CSV (Excel en español)» (semicolon, decimal comma), beside an export button. */
export function CsvFormatSelect({ value, onChange, className }: { value: CsvFormat; onChange: (next: CsvFormat) => void; className?: string }) {
  return (
    <select
      aria-label="Formato del CSV"
      value={value}
      onChange={(e) => onChange(e.target.value as CsvFormat)}
      className={cn('rounded-md border border-gray-300 bg-white px-2 py-1.5 text-sm text-gray-700 focus:border-blue-500 max-sm:min-h-11', className)}
    >
      {CSV_FORMATS.map((f) => (
        <option key={f} value={f}>
          {CSV_FORMAT_LABELS[f]}
        </option>
      ))}
    </select>
  );
}
