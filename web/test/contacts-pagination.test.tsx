import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Pagination } from '../src/features/contacts/components/pagination';

const noop = () => undefined;

describe('Pagination on a large account', () => {
  it('marks an estimated total with ≈ until the exact one arrives', () => {
    const { rerender } = render(
      <Pagination page={1} pageSize={20} total={1_000_000} approximate shown={{ offset: 0, count: 20 }} onPage={noop} onPageSize={noop} />,
    );
    expect(screen.getByTestId('contacts-summary').textContent).toMatch(/de ≈ 1[.,]000[.,]000 resultados/);
    rerender(<Pagination page={1} pageSize={20} total={1_000_123} shown={{ offset: 0, count: 20 }} onPage={noop} onPageSize={noop} />);
    expect(screen.getByTestId('contacts-summary').textContent).not.toContain('≈');
  });

  it('never offers a page past the listing offset the API allows (10,000)', () => {
    render(<Pagination page={501} pageSize={20} total={1_000_000} shown={{ offset: 10_000, count: 20 }} onPage={noop} onPageSize={noop} />);
    const numbers = screen.getAllByRole('button').map((b) => Number(b.textContent)).filter((n) => Number.isFinite(n) && n > 0);
    expect(Math.max(...numbers)).toBe(501);
  });
});
