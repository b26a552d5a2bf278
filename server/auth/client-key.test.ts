import { describe, expect, it } from 'vitest';
import { PEER_ADDRESS_HEADER } from '../security/peer-address';
import { clientAddress, clientIdentity, DEVICE_COOKIE } from './client-key';

const device = 'abcdefghijklmnopqrstuvwx';

describe('client identity for the sign-in limits', () => {
  it('is the device cookie and the socket address this process stamped; never X-Forwarded-For', () => {
    const headers = new Headers({
      cookie: `${DEVICE_COOKIE}=${device}`,
      [PEER_ADDRESS_HEADER]: '::ffff:192.0.2.7',
      'x-forwarded-for': '127.0.0.1',
    });
    expect(clientIdentity(headers, { peerAddress: true })).toEqual({ device, address: '192.0.2.7' });
    // Not stamped by this process (a test, a CLI): the header is the client's and is not read.
    expect(clientIdentity(headers, { peerAddress: false })).toEqual({ device, address: null });
  });

  it("prefers the trusted proxy's header, and refuses a list in it", () => {
    const headers = new Headers({ 'x-client-ip': '198.51.100.4', [PEER_ADDRESS_HEADER]: '10.0.0.2' });
    expect(clientAddress(headers, { trustedIpHeader: 'x-client-ip', peerAddress: true })).toBe('198.51.100.4');
    const listed = new Headers({ 'x-client-ip': '1.2.3.4, 198.51.100.4' });
    expect(clientAddress(listed, { trustedIpHeader: 'x-client-ip', peerAddress: true })).toBeNull();
  });

  it('ignores a malformed device cookie', () => {
    expect(clientIdentity(new Headers({ cookie: `${DEVICE_COOKIE}=short` }), { peerAddress: false }).device).toBeNull();
  });
});
