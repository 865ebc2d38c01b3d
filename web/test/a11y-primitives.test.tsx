import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { TagFilter } from '../src/components/contact-filter/tag-filter';
import { ConfirmDialog } from '../src/components/ui/confirm-dialog';
import { Dialog } from '../src/components/ui/dialog';
import { Input } from '../src/components/ui/field';
import { ProgressBar } from '../src/components/ui/progress-bar';

describe('field wiring', () => {
  it('points the control at its hint, then at its error, and marks the spec\'s « *» fields as required', () => {
    const { rerender } = render(<Input label="Nombre *" id="n" hint="Solo letras" />);
    const input = screen.getByLabelText('Nombre *');
    expect(input.getAttribute('aria-required')).toBe('true');
    expect(document.getElementById(input.getAttribute('aria-describedby')!)?.textContent).toBe('Solo letras');
    rerender(<Input label="Nombre *" id="n" hint="Solo letras" error="El nombre es requerido" />);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(input.getAttribute('aria-describedby')!)?.textContent).toBe('El nombre es requerido');
  });
});

describe('progress bar', () => {
  it('has a name and says what it counts', () => {
    render(<ProgressBar value={40} label="Progreso de Verano" valueText="2 de 5" />);
    const bar = screen.getByRole('progressbar', { name: 'Progreso de Verano' });
    expect(bar.getAttribute('aria-valuetext')).toBe('2 de 5');
  });
});

describe('tag filter', () => {
  function Harness() {
    const [tags, setTags] = useState<string[]>([]);
    return <TagFilter tags={['a', 'b', 'c']} selected={tags} operator="OR" onChange={(t) => setTags(t)} />;
  }
  it('is one Tab stop; arrows move between chips and Space toggles', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const chips = ['a', 'b', 'c'].map((t) => screen.getByRole('button', { name: t }));
    expect(chips.filter((c) => c.tabIndex === 0)).toHaveLength(1);
    chips[0].focus();
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(chips[1]);
    await user.keyboard(' ');
    expect(chips[1].getAttribute('aria-pressed')).toBe('true');
    expect(chips.map((c) => c.tabIndex)).toEqual([-1, 0, -1]);
  });
});

describe('dialog', () => {
  function Harness() {
    const [open, setOpen] = useState(false);
    return (
      <>
        <button type="button" onClick={() => setOpen(true)}>
          Abrir
        </button>
        <Dialog open={open} onOpenChange={setOpen} title="Agregar Número">
          <input aria-label="Teléfono" />
        </Dialog>
      </>
    );
  }
  it('is named by its title, starts on its first field, and gives focus back to the opener on Escape', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const opener = screen.getByRole('button', { name: 'Abrir' });
    await user.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'Agregar Número' });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Teléfono')));
    expect(dialog.contains(document.activeElement)).toBe(true);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });
});

describe('confirm dialog', () => {
  it('opens on «Cancelar», so Enter right away does not confirm', async () => {
    const user = userEvent.setup();
    let confirmed = 0;
    let cancelled = 0;
    render(
      <ConfirmDialog
        open
        title="Reintentar desconocidos"
        message="Algunos pueden haber recibido ya el mensaje."
        confirmLabel="Reintentar"
        onConfirm={() => confirmed++}
        onCancel={() => cancelled++}
      />,
    );
    const dialog = await screen.findByRole('dialog', { name: 'Reintentar desconocidos' });
    expect(dialog.getAttribute('aria-describedby')).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancelar' })));
    await user.keyboard('{Enter}');
    expect([confirmed, cancelled]).toEqual([0, 1]);
  });
});
