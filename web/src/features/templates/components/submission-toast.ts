import type { CreateTemplateResponse } from '@masivo/contract/templates';
import toast from 'react-hot-toast';

/** Spec §8: what the operator is told after a template is created (or resubmitted). */
export function announceSubmission(result: CreateTemplateResponse) {
  const submission = result.submission ?? { success: result.success, message: result.message };
  if (submission.success) toast.success('Plantilla creada y enviada a Facebook para aprobación exitosamente');
  else if (submission.message) toast.error(`Plantilla creada, pero no se pudo enviar a Facebook: ${submission.message}`);
  else toast.success('Plantilla creada exitosamente');
}
