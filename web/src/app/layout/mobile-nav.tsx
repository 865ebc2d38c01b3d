import * as RadixDialog from '@radix-ui/react-dialog';
import { Menu, X } from 'lucide-react';
import { useState } from 'react';
import { Brand, SidebarContent } from './sidebar';

/**
 * The phone and tablet header: the brand and a menu button that opens the sidebar as a drawer.
 * The drawer is a modal dialog (focus trapped, Escape closes, focus back on the menu button) and
 * closes itself when a link is followed.
 */
export function MobileNav() {
  const [open, setOpen] = useState(false);
  return (
    <header className="sticky top-0 z-30 flex h-14 items-center gap-2 border-b border-gray-200 bg-white px-2 lg:hidden">
      <RadixDialog.Root open={open} onOpenChange={setOpen}>
        <RadixDialog.Trigger
          aria-label="Abrir menú"
          className="inline-flex h-11 w-11 items-center justify-center rounded-md text-gray-700 hover:bg-gray-100"
        >
          <Menu className="h-6 w-6" aria-hidden="true" />
        </RadixDialog.Trigger>
        <RadixDialog.Portal>
          <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
          <RadixDialog.Content
            aria-describedby={undefined}
            className="fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] flex-col bg-white shadow-xl focus:outline-none"
          >
            <div className="flex h-14 items-center justify-between gap-2 border-b pr-2 pl-4">
              <RadixDialog.Title className="flex items-center gap-2">
                <Brand />
              </RadixDialog.Title>
              <RadixDialog.Close aria-label="Cerrar menú" className="inline-flex h-11 w-11 items-center justify-center rounded-md text-gray-500 hover:bg-gray-100 hover:text-gray-700">
                <X className="h-5 w-5" aria-hidden="true" />
              </RadixDialog.Close>
            </div>
            <SidebarContent onNavigate={() => setOpen(false)} />
          </RadixDialog.Content>
        </RadixDialog.Portal>
      </RadixDialog.Root>
      <div className="flex items-center gap-2">
        <Brand />
      </div>
    </header>
  );
}
