import type { ReactNode } from 'react';
import { Dialog } from './dialog';

/** The feature dialogs' historical API, kept so each screen reads the same; it is `Dialog` underneath. */
export function Modal({ open, title, onClose, children, wide }: { open: boolean; title: ReactNode; onClose: () => void; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} title={title} wide={wide}>
      {children}
    </Dialog>
  );
}
