/**
 * What the account card shows after the operator cancels a sync. Written by the cancel (this
 * feature's service); here, below the engine's sync, so no arrow runs from services up to it.
 */
export const SYNC_CANCELLED = 'Sincronización cancelada. Los contactos ya sincronizados se conservan; no se eliminó ninguno.';
