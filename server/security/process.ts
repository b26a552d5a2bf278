/**
 * What the request checks keep for the whole process, in one record on `globalThis`: `proxy.ts`, the route modules
 * and instrumentation are bundled separately by Next, and all must see the same exposure policy and know whether
 * this process stamps the peer-address header.
 */
import type { ExposurePolicy } from './exposure';

export interface SecurityProcess {
  /** Built on first use, after Next listens (`runtime.ts`). */
  exposure?: ExposurePolicy;
  /** The http server's `request` hook writes the socket's address into its own header (`peer-address.ts`). */
  peerAddressStamped: boolean;
}

const g = globalThis as typeof globalThis & { __skillchatSecurity?: SecurityProcess };

export function securityProcess(): SecurityProcess {
  g.__skillchatSecurity ??= { peerAddressStamped: false };
  return g.__skillchatSecurity;
}
