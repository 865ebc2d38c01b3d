export * from './users';
export * from './kommo';
export * from './whatsapp';
export * from './campaigns';
export * from './meta';
export * from './pricing';
export * from './settings';
export * from './follow-ups';
