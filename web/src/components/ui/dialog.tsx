import * as RadixDialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { useRef, type ReactNode } from 'react';
import { cn } from './cn';

/** Fields first, then buttons: a form dialog should open on its first field, not on «Cerrar». */
const FIRST_FOCUS = 'input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [data-autofocus]';
const ANY_FOCUSABLE = 'button:not([disabled]), [href], [tabindex]:not([tabindex="-1"])';

export interface DialogProps {
  open: boolean;
  /** Called with `false` on Escape, the close button or a click on the backdrop. */
  onOpenChange: (open: boolean) => void;
  /** Rendered as the dialog's `h2`; it names the dialog (`aria-labelledby`). */
  title: ReactNode;
  /** Optional text under the title; it describes the dialog (`aria-describedby`). */
  description?: ReactNode;
  wide?: boolean;
  children: ReactNode;
  /** Extra classes for the scrolling body. */
  bodyClassName?: string;
}

/**
 * The console's only dialog. Radix does the parts that must not be hand-written: focus moves in
 * and is trapped, Escape closes, focus returns to whatever opened it, the page behind is hidden
 * from assistive technology, does not take clicks and does not scroll, and the dialog renders in a
 * portal outside `<main>`. On phones it is a full-height sheet whose body scrolls, so the close
 * button and the form's submit row are always reachable.
 */
export function Dialog({ open, onOpenChange, title, description, wide, children, bodyClassName }: DialogProps) {
  // Radix returns focus to its own Trigger; our dialogs are opened from ordinary buttons (and
  // menus, rows...), so the element that had focus on opening is remembered and refocused.
  const returnTo = useRef<HTMLElement | null>(null);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <RadixDialog.Content
          {...(description ? {} : { 'aria-describedby': undefined })}
          onOpenAutoFocus={(event) => {
            returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            const content = event.currentTarget as HTMLElement;
            const target = content.querySelector<HTMLElement>(FIRST_FOCUS) ?? content.querySelector<HTMLElement>(`[data-dialog-body] :is(${ANY_FOCUSABLE})`);
            if (target) {
              event.preventDefault();
              target.focus();
            }
          }}
          onCloseAutoFocus={(event) => {
            const target = returnTo.current;
            returnTo.current = null;
            if (target?.isConnected) {
              event.preventDefault();
              target.focus();
            }
          }}
          className={cn(
            'fixed inset-0 z-50 flex flex-col bg-white shadow-xl focus:outline-none',
            'sm:inset-x-4 sm:top-1/2 sm:bottom-auto sm:mx-auto sm:max-h-[calc(100dvh-2rem)] sm:-translate-y-1/2 sm:rounded-lg',
            wide ? 'sm:max-w-4xl' : 'sm:max-w-lg',
          )}
        >
          <div className="flex shrink-0 items-center justify-between gap-3 border-b px-5 py-3">
            <RadixDialog.Title className="min-w-0 text-lg font-semibold text-gray-900">{title}</RadixDialog.Title>
            <RadixDialog.Close aria-label="Cerrar" className="tap-target -mr-2 inline-flex shrink-0 items-center justify-center rounded p-2 text-gray-500 hover:bg-gray-100 hover:text-gray-700">
              <X className="h-5 w-5" aria-hidden="true" />
            </RadixDialog.Close>
          </div>
          {description && <RadixDialog.Description className="px-5 pt-4 text-sm text-gray-600">{description}</RadixDialog.Description>}
          <div data-dialog-body className={cn('min-h-0 flex-1 overflow-y-auto overscroll-contain p-5', bodyClassName)}>
            {children}
          </div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
