import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a tenant's link (a media header, an outbound webhook) must never reach: this
 * server's own network (loopback, private ranges, link-local with the cloud metadata endpoint,
 * CGNAT, unique-local IPv6, multicast, reserved).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32], ['100::', 64],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // An IPv4-mapped address (::ffff:10.0.0.1) is the IPv4 address underneath.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    // The same written in hex, as the URL parser normalises it (::ffff:7f00:1 is 127.0.0.1).
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (hex) {
      const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
      return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}

/** Resolves a host name to its addresses (injectable so tests can make a name point anywhere). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/**
 * A `lookup` for outbound connections that refuses a name any of whose addresses is blocked,
 * failing with an error whose `code` is `code`. It runs inside the connection, so the address
 * checked is the address connected to (no window for a name to change in between).
 */
export function publicAddressLookup(code: string, resolve: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (list) => {
        const bad = list.find((a) => isBlockedAddress(a.address));
        if (bad || !list.length) return callback(Object.assign(new Error(`blocked address ${bad?.address ?? ''}`), { code }), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
