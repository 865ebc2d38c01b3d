import type { ReactNode } from 'react';

export function EmptyState({ icon, title, hint, action }: { icon?: ReactNode; title: string; hint?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-3 px-6 py-12 text-center">
      {icon && <div className="text-gray-300">{icon}</div>}
      <p className="text-gray-600">{title}</p>
      {hint && <p className="text-sm text-gray-500">{hint}</p>}
      {action}
    </div>
  );
}
