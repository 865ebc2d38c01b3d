import { Copy } from 'lucide-react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';

/** The signing secret, shown this once (after a creation or a rotation): it cannot be read again. */
export function SecretDialog({ secret, rotated, onClose }: { secret: string | null; rotated: boolean; onClose: () => void }) {
  const copy = () =>
    navigator.clipboard?.writeText(secret ?? '').then(
      () => toast.success('Secreto copiado'),
      () => toast.error('No se pudo copiar: selecciónalo y cópialo a mano'),
    );
  return (
    <Modal open={secret !== null} title="Secreto de firma" onClose={onClose}>
      <div className="space-y-4">
        <p className="text-sm text-gray-700">
          Guárdalo ahora: <strong>no se volverá a mostrar</strong>. Tu sistema lo usa para verificar la cabecera <code>webhook-signature</code> (Standard
          Webhooks).
          {rotated && ' El secreto anterior sigue firmando durante 24 horas, así puedes actualizarlo sin perder eventos.'}
        </p>
        <code data-testid="webhook-secret" className="block rounded border bg-gray-50 p-3 font-mono text-sm break-all select-all">
          {secret}
        </code>
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={copy}>
            <Copy className="h-4 w-4" aria-hidden="true" />
            Copiar
          </Button>
          <Button onClick={onClose}>Listo, lo guardé</Button>
        </div>
      </div>
    </Modal>
  );
}
