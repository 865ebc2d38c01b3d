import { Ban, FileText, History, KeyRound, LayoutDashboard, LogOut, MessageCircle, MonitorSmartphone, Receipt, Send, Users, Building2, UsersRound, Webhook } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { ROLE_LABEL, type Permission } from '@masivo/contract/organizations';
import { Link, useLocation, useNavigate } from 'react-router';
import { cn } from '@/components/ui/cn';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { errorMessage } from '@/lib/api-client';
import { useAuth } from '../../features/auth/auth-context';
import { useMember } from '@/lib/use-member';

interface NavItem {
  label: string;
  href: string;
  icon: typeof Send;
  /** Shown only to members whose role has it (the page would only say "not allowed"). */
  permission?: Permission;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { label: 'Dashboard', href: '/dashboard', icon: LayoutDashboard },
  { label: 'Cuentas Kommo', href: '/accounts', icon: Building2 },
  { label: 'Cuentas WhatsApp', href: '/whatsapp-accounts', icon: MessageCircle },
  { label: 'Contactos', href: '/contacts', icon: Users },
  { label: 'Campañas', href: '/campaigns', icon: Send },
  { label: 'Templates', href: '/templates', icon: FileText },
  { label: 'Blacklist', href: '/blacklist', icon: Ban },
  { label: 'Tarifas', href: '/pricing', icon: Receipt },
  { label: 'Organización', href: '/organization', icon: UsersRound, permission: 'organization.manage' },
  { label: 'Registro de actividad', href: '/activity', icon: History, permission: 'organization.manage' },
  { label: 'Claves de API', href: '/api-keys', icon: KeyRound, permission: 'api_keys.manage' },
  { label: 'Webhooks', href: '/webhooks', icon: Webhook, permission: 'webhooks.manage' },
];

/** Spec: an item is highlighted when the path equals its href or starts with it. */
export const isActive = (pathname: string, href: string) => pathname === href || pathname.startsWith(href);

export function Brand() {
  return (
    <>
      <MessageCircle className="h-6 w-6 text-green-600" aria-hidden="true" />
      <span className="text-lg font-bold text-gray-900">Mensajes Masivos</span>
    </>
  );
}

/**
 * The nav, the user, «Cerrar Sesión» (this session) and «Cerrar sesión en todos los dispositivos»
 * (every session, after a confirmation): the same content in the desktop column and the phone drawer.
 */
export function SidebarContent({ onNavigate }: { onNavigate?: () => void }) {
  const { pathname } = useLocation();
  const { user, logout } = useAuth();
  const { can } = useMember();
  const items = NAV_ITEMS.filter((i) => !i.permission || can(i.permission));
  return (
    <>
      <nav className="flex-1 space-y-1 overflow-y-auto px-3 py-4" aria-label="Navegación principal">
        {items.map(({ label, href, icon: Icon }) => {
          const active = isActive(pathname, href);
          return (
            <Link
              key={href}
              to={href}
              onClick={onNavigate}
              aria-current={active ? 'page' : undefined}
              className={cn(
                'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium max-lg:min-h-11',
                active ? 'bg-blue-50 text-blue-700' : 'text-gray-600 hover:bg-gray-50 hover:text-gray-900',
              )}
            >
              <Icon className="h-5 w-5" aria-hidden="true" />
              {label}
            </Link>
          );
        })}
      </nav>
      <div className="border-t px-4 py-4">
        <div className="mb-3 min-w-0">
          <p className="truncate text-sm font-medium text-gray-900" data-testid="sidebar-user-name">
            {user?.first_name || user?.email}
          </p>
          <p className="truncate text-xs text-gray-500">{user?.email}</p>
        </div>
        <OrganizationSwitcher />
        <button
          type="button"
          onClick={logout}
          className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-sm text-gray-600 hover:bg-gray-50 hover:text-gray-900"
        >
          <LogOut className="h-4 w-4" aria-hidden="true" />
          Cerrar Sesión
        </button>
        <LogoutEverywhere />
        <p className="mt-3 text-center text-xs text-gray-500">v1.0.0 - Sistema de Mensajes Masivos</p>
      </div>
    </>
  );
}

/**
 * The organisation this session acts in and the member's role there; a member of several
 * switches here (a new session; every screen reloads with the other organisation's data).
 */
function OrganizationSwitcher() {
  const { me } = useMember();
  const { switchOrganization } = useAuth();
  const navigate = useNavigate();
  const [pending, setPending] = useState(false);
  if (!me?.organization) return null;
  const role = me.role ? ROLE_LABEL[me.role] : '';
  const change = async (id: number) => {
    setPending(true);
    try {
      await switchOrganization(id);
      navigate('/dashboard');
    } catch (err) {
      toast.error(errorMessage(err, 'No se pudo cambiar de organización'));
    } finally {
      setPending(false);
    }
  };
  return (
    <div className="mb-3 rounded-md bg-gray-50 px-3 py-2" data-testid="sidebar-organization">
      {me.organizations.length > 1 ? (
        <>
          <label htmlFor="organization-switcher" className="block text-xs font-medium text-gray-500">
            Organización
          </label>
          <select
            id="organization-switcher"
            value={me.organization.id}
            disabled={pending}
            onChange={(e) => void change(Number(e.target.value))}
            className="mt-1 w-full rounded-md border border-gray-300 bg-white px-2 py-1 text-sm text-gray-900 max-lg:min-h-11"
          >
            {me.organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </>
      ) : (
        <p className="truncate text-sm font-medium text-gray-900">{me.organization.name}</p>
      )}
      <p className="mt-1 text-xs text-gray-500">{role}</p>
    </div>
  );
}

/** «Cerrar sesión en todos los dispositivos»: asks first, then ends every session of the account. */
function LogoutEverywhere() {
  const { logoutEverywhere } = useAuth();
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const confirm = async () => {
    setPending(true);
    try {
      await logoutEverywhere();
    } catch (err) {
      // Still signed in here, dialog open: the person can try again.
      toast.error(errorMessage(err, 'No se pudo cerrar sesión en todos los dispositivos'));
      setPending(false);
    }
  };
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="mt-1 flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-xs text-gray-500 hover:bg-gray-50 hover:text-gray-900 max-lg:min-h-11"
      >
        <MonitorSmartphone className="h-4 w-4 shrink-0" aria-hidden="true" />
        Cerrar sesión en todos los dispositivos
      </button>
      <ConfirmDialog
        open={open}
        title="¿Cerrar sesión en todos los dispositivos?"
        message="Se cerrará la sesión en este navegador y en todos los demás dispositivos donde hayas entrado con esta cuenta. Para volver a entrar, tendrás que iniciar sesión de nuevo en cada uno."
        confirmLabel="Cerrar sesión en todos"
        pendingLabel="Cerrando sesiones..."
        pending={pending}
        variant="danger"
        onConfirm={() => void confirm()}
        onCancel={() => !pending && setOpen(false)}
      />
    </>
  );
}

/** The fixed column of the desktop layout; below `lg` the drawer (`MobileNav`) takes its place. */
export function Sidebar() {
  return (
    <aside className="fixed inset-y-0 left-0 hidden w-64 flex-col border-r border-gray-200 bg-white lg:flex">
      <div className="flex h-16 items-center gap-2 border-b px-6">
        <Brand />
      </div>
      <SidebarContent />
    </aside>
  );
}
