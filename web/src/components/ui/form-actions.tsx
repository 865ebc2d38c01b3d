import { Button } from './button';
import { cn } from './cn';

/** The Cancelar + submit row that closes every form dialog of the console. */
export function FormActions({
  onCancel,
  pending,
  label,
  pendingLabel,
  onSubmit,
  className,
}: {
  onCancel: () => void;
  pending: boolean;
  label: string;
  pendingLabel: string;
  /** Without it the button submits its form. */
  onSubmit?: () => void;
  className?: string;
}) {
  return (
    <div className={cn('flex justify-end gap-2', className ?? 'pt-2')}>
      <Button variant="secondary" onClick={onCancel}>
        Cancelar
      </Button>
      <Button type={onSubmit ? 'button' : 'submit'} onClick={onSubmit} disabled={pending}>
        {pending ? pendingLabel : label}
      </Button>
    </div>
  );
}
