export { contactAt, generateContacts, tagsForSeed, FIELD_NAMES } from './contact';
export type { GeneratedContact, FieldName, PhoneKind, PhoneEnumCode } from './contact';
export { mulberry32, hashSeed } from './prng';
export type { Rng } from './prng';
export { PLANS, ORIGINS, type Country, type Plan } from './words';
export { countScenarios, type ScenarioFilter } from './count-scenarios';
