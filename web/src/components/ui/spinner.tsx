import { cn } from './cn';

export function Spinner({ className, label = 'Cargando...' }: { className?: string; label?: string }) {
  return (
    <div role="status" aria-label={label} className={cn('flex items-center justify-center', className)}>
      <div className="h-8 w-8 motion-safe:animate-spin rounded-full border-4 border-blue-200 border-t-blue-600" />
    </div>
  );
}
