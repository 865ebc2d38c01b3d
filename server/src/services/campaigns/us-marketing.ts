/**
 * Meta does not deliver marketing templates to United States numbers: a MARKETING campaign
 * skips them at the freeze with this reason (audience-classifier.ts decides which numbers are
 * the US's, from libphonenumber's area codes; Canada, Puerto Rico and the other +1 countries
 * are kept).
 */
export const US_MARKETING = 'EE.UU. (marketing)';
