import { ROLES, type Role } from '@masivo/contract/organizations';

/**
 * The roles someone may hand out: their own and those below (the server refuses the rest, this
 * only spares the choice of a role that would be refused).
 */
export const grantableRoles = (own: Role | null | undefined): Role[] => (own ? ROLES.slice(ROLES.indexOf(own)) : []);
