import { createGraphClient, type GraphClient } from './graph-client';

const clients = new Map<string, GraphClient>();

/** One client per Graph base URL (one per process in practice; tests may use several). */
export function graphClientFor(baseUrl: string): GraphClient {
  let client = clients.get(baseUrl);
  if (!client) {
    client = createGraphClient(baseUrl);
    clients.set(baseUrl, client);
  }
  return client;
}
