// Campaign tables (campaigns, recipients, sender leases, webhook inbox) live here.
export {};
