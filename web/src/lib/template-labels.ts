/**
 * Spanish labels for what Meta and the console call templates. Meta's status list is longer
 * than the spec's four (approved, pending, rejected, disabled); every one gets a label, so no
 * raw English code reaches the screen.
 */
export const TEMPLATE_STATUS_LABELS: Record<string, string> = {
  approved: 'Aprobada',
  pending: 'Pendiente',
  rejected: 'Rechazada',
  disabled: 'Deshabilitada',
  paused: 'Pausada',
  in_appeal: 'En apelación',
  pending_deletion: 'Pendiente de eliminación',
  deleted: 'Eliminada',
  limit_exceeded: 'Límite excedido',
  archived: 'Archivada',
  reinstated: 'Restablecida',
  flagged: 'Marcada',
  draft: 'Borrador',
};

export const templateStatusLabel = (status: string) => TEMPLATE_STATUS_LABELS[status.toLowerCase()] ?? 'Estado desconocido';

/** The create dialog's language picker; Meta stores Portuguese as pt_BR, shown with the same label. */
export const TEMPLATE_LANGUAGE_LABELS: Record<string, string> = { es: 'Español', en: 'Inglés', pt: 'Portugués', fr: 'Francés' };

export const templateLanguageLabel = (code: string) => TEMPLATE_LANGUAGE_LABELS[code] ?? TEMPLATE_LANGUAGE_LABELS[code.split('_')[0]] ?? code;
