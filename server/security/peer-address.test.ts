import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { PEER_ADDRESS_HEADER, peerAddressStamped, stampPeerAddress } from './peer-address';

const request = (remoteAddress: string | undefined, headers: http.IncomingHttpHeaders) =>
  ({ socket: { remoteAddress }, headers }) as unknown as http.IncomingMessage;

describe('stampPeerAddress', () => {
  it("overwrites a client-sent value with the socket's address", () => {
    const req = request('::ffff:203.0.113.9', { [PEER_ADDRESS_HEADER]: '127.0.0.1' });
    stampPeerAddress(req);
    expect(req.headers[PEER_ADDRESS_HEADER]).toBe('203.0.113.9');
    expect(peerAddressStamped()).toBe(true);
  });

  it('removes a client-sent value when the socket has no address', () => {
    const req = request(undefined, { [PEER_ADDRESS_HEADER]: '127.0.0.1' });
    stampPeerAddress(req);
    expect(req.headers[PEER_ADDRESS_HEADER]).toBeUndefined();
  });
});
