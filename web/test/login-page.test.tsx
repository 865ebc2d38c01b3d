import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AuthProvider } from '../src/features/auth/auth-context';
import { LoginPage } from '../src/features/auth/components/login-page';

describe('LoginPage', () => {
  it('shows the spec validation messages', async () => {
    render(
      <MemoryRouter>
        <AuthProvider>
          <LoginPage />
        </AuthProvider>
      </MemoryRouter>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar Sesión' }));
    expect(await screen.findByText('Email es requerido')).toBeTruthy();
    expect(screen.getByText('Contraseña es requerida')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Email'), 'malo');
    await userEvent.type(screen.getByLabelText('Contraseña'), '123');
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar Sesión' }));
    expect(await screen.findByText('Email inválido')).toBeTruthy();
    expect(screen.getByText('La contraseña debe tener al menos 6 caracteres')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'crear una cuenta nueva' })).toBeTruthy();
  });
});
