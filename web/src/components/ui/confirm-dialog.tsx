import type { ReactNode } from 'react';
import { Button, type ButtonProps } from './button';
import { Dialog } from './dialog';

/**
 * A yes/no question in the console's dialog (focus trapped, Escape cancels, focus back on the
 * trigger). Focus starts on «Cancelar», so Enter right after opening never does the risky thing.
 */
export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel,
  pendingLabel,
  pending = false,
  variant = 'primary',
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: ReactNode;
  message: ReactNode;
  confirmLabel: string;
  pendingLabel?: string;
  pending?: boolean;
  variant?: ButtonProps['variant'];
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onCancel()} title={title} description={message}>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="secondary" onClick={onCancel} data-autofocus>
          Cancelar
        </Button>
        <Button variant={variant} onClick={onConfirm} disabled={pending}>
          {pending && pendingLabel ? pendingLabel : confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
