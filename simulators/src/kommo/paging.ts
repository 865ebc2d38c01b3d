// page / limit handling and the _links block shared by every Kommo list endpoint.

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

export function parsePaging(query: Record<string, unknown>): Paging {
  const rawPage = Number.parseInt(String(query.page ?? ''), 10);
  const rawLimit = Number.parseInt(String(query.limit ?? ''), 10);
  const page = Number.isFinite(rawPage) && rawPage >= 1 ? rawPage : 1;
  const limit = Number.isFinite(rawLimit) && rawLimit >= 1 ? Math.min(rawLimit, MAX_LIMIT) : DEFAULT_LIMIT;
  return { page, limit, offset: (page - 1) * limit };
}

/**
 * self / next / prev links keeping the request's other parameters. Like Kommo, `next` is present
 * whenever the page is full, even when it happens to be the last one.
 */
export function pageLinks(baseHref: string, rawQuery: string, paging: Paging, itemsOnPage: number) {
  const href = (page: number) => {
    const params = new URLSearchParams(rawQuery);
    params.set('page', String(page));
    params.set('limit', String(paging.limit));
    return { href: `${baseHref}?${params.toString()}` };
  };
  const links: Record<string, { href: string }> = { self: href(paging.page) };
  if (itemsOnPage >= paging.limit) links.next = href(paging.page + 1);
  if (paging.page > 1) links.prev = href(paging.page - 1);
  return links;
}
