/**
 * The syntax of an `install.allowHosts` entry, apart from network.ts so the config schema can check it without
 * loading the HTTP clients (the CLI loads the config on every call).
 */
import net from 'node:net';

/** A CIDR range, an address, or a host name: whether `entry` can be an `install.allowHosts` entry. */
export function isAllowEntry(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined || !address) return false;
  const family = net.isIP(address);
  if (prefix !== undefined) {
    const bits = Number(prefix);
    return family !== 0 && /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
  }
  return family !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(address);
}
