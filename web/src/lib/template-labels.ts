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

/** The detail of Meta's last status event (`other_info.title` of a pause, or a quality flag). */
export const TEMPLATE_DETAIL_LABELS: Record<string, string> = {
  FIRST_PAUSE: '1.ª pausa: 3 horas',
  SECOND_PAUSE: '2.ª pausa: 6 horas',
  FLAGGED: 'Marcada por baja calidad',
};

export const templateDetailLabel = (detail: string | null | undefined) => (detail ? (TEMPLATE_DETAIL_LABELS[detail] ?? null) : null);

interface CategoryChange {
  kind: 'impending' | 'completed';
  from: string | null;
  to: string;
  at: string | null;
}

const categoryName = (c: string | null | undefined) => (c ? c.toLowerCase() : 'otra');

/**
 * Spanish notice of a category change Meta announced or made; null when there is nothing to
 * warn about (an impending change whose time has passed is shown as made by the next sync).
 */
export function categoryChangeNotice(change: CategoryChange | null | undefined, formatWhen: (iso: string) => string, now = Date.now()): string | null {
  if (!change) return null;
  if (change.kind === 'impending') {
    if (change.at && Date.parse(change.at) < now - 24 * 3_600_000) return null;
    const when = change.at ? ` el ${formatWhen(change.at)}` : ' en las próximas 24 horas';
    return `Meta cambiará la categoría de esta plantilla de ${categoryName(change.from)} a ${categoryName(change.to)}${when}: desde entonces cada mensaje se cobra y se limita como ${categoryName(change.to)}.`;
  }
  return `Meta cambió la categoría de esta plantilla de ${categoryName(change.from)} a ${categoryName(change.to)}.`;
}
