/**
 * The server name (SNI) a TLS ClientHello asks for, read from the first bytes a client sends into a tunnel. An
 * opaque tunnel to `api.example.com` whose ClientHello names another host is domain fronting: on a shared CDN
 * address the front would route it to that other host. Hand-parsed (RFC 8446 4.1.2, RFC 6066 3): a handful of
 * length-prefixed fields, no dependency needed.
 */

/** `more`: the ClientHello is not complete yet; `invalid`: these bytes are not one. */
export type ClientHelloName = { state: 'more' } | { state: 'invalid' } | { state: 'done'; name: string | null };

const HANDSHAKE = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME = 0x0000;
/** A ClientHello with post-quantum key shares is ~2 KB; a client that sends more than this before one is complete is not a TLS client. */
export const MAX_CLIENT_HELLO = 64 * 1024;

export function isTlsHandshake(first: Buffer): boolean {
  return first.length > 0 && first[0] === HANDSHAKE;
}

/** The host name in the ClientHello at the start of `data` (lower case, no trailing dot), or null when it has none. */
export function clientHelloServerName(data: Buffer): ClientHelloName {
  // The handshake message may span several records: gather their payloads.
  const fragments: Buffer[] = [];
  let offset = 0;
  while (offset + 5 <= data.length) {
    if (data[offset] !== HANDSHAKE) return { state: 'invalid' };
    const length = data.readUInt16BE(offset + 3);
    if (offset + 5 + length > data.length) break;
    fragments.push(data.subarray(offset + 5, offset + 5 + length));
    offset += 5 + length;
    const handshake = Buffer.concat(fragments);
    if (handshake.length < 4) continue;
    if (handshake[0] !== CLIENT_HELLO) return { state: 'invalid' };
    const size = handshake.readUIntBE(1, 3);
    if (handshake.length >= 4 + size) {
      const name = serverName(handshake.subarray(4, 4 + size));
      return name === undefined ? { state: 'invalid' } : { state: 'done', name };
    }
  }
  return data.length > MAX_CLIENT_HELLO ? { state: 'invalid' } : { state: 'more' };
}

/** The host_name entry of the server_name extension of a ClientHello body; undefined when the body is malformed. */
function serverName(body: Buffer): string | null | undefined {
  let at = 2 + 32; // legacy_version, random
  const skip = (lengthBytes: number): boolean => {
    if (at + lengthBytes > body.length) return false;
    at += lengthBytes + body.readUIntBE(at, lengthBytes);
    return at <= body.length;
  };
  if (!skip(1) || !skip(2) || !skip(1)) return undefined; // session id, cipher suites, compression methods
  if (at === body.length) return null; // no extensions at all
  if (at + 2 > body.length) return undefined;
  const end = at + 2 + body.readUInt16BE(at);
  if (end > body.length) return undefined;
  at += 2;
  while (at + 4 <= end) {
    const type = body.readUInt16BE(at);
    const length = body.readUInt16BE(at + 2);
    const data = body.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    if (at > end) return undefined;
    if (type !== SERVER_NAME) continue;
    // server_name_list: a 2-byte length, then entries of type (0 = host_name), a 2-byte length and the name.
    let entry = 2;
    while (entry + 3 <= data.length) {
      const nameType = data[entry]!;
      const nameLength = data.readUInt16BE(entry + 1);
      if (entry + 3 + nameLength > data.length) return undefined;
      if (nameType === 0) {
        return data
          .subarray(entry + 3, entry + 3 + nameLength)
          .toString('latin1')
          .toLowerCase()
          .replace(/\.$/, '');
      }
      entry += 3 + nameLength;
    }
    return undefined;
  }
  return null;
}
