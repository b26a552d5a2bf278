/** The server name of real ClientHellos (Node's own TLS client writes them into a stream that keeps them). */
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { clientHelloServerName, isTlsHandshake, MAX_CLIENT_HELLO } from './client-hello';

/** The first flight of a TLS client asking for `servername` (none when empty). */
async function clientHello(servername: string): Promise<Buffer> {
  const written: Buffer[] = [];
  const wire = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk);
      callback();
    },
  });
  const client = tls.connect({ socket: wire, servername, rejectUnauthorized: false });
  client.on('error', () => {});
  await new Promise((resolve) => setTimeout(resolve, 50));
  client.destroy();
  return Buffer.concat(written);
}

describe('clientHelloServerName', () => {
  it('reads the name a TLS client asks for, lower case', async () => {
    const hello = await clientHello('API.Example.test');
    expect(isTlsHandshake(hello)).toBe(true);
    expect(clientHelloServerName(hello)).toEqual({ state: 'done', name: 'api.example.test' });
  });

  it('asks for more while the ClientHello is cut short, at any byte', async () => {
    const hello = await clientHello('upstream.test');
    for (const cut of [1, 5, 6, 9, 60, hello.length - 1]) {
      expect(clientHelloServerName(hello.subarray(0, cut))).toEqual({ state: 'more' });
    }
  });

  it('answers null for a ClientHello without a name (a client connecting to an address)', async () => {
    expect(clientHelloServerName(await clientHello(''))).toEqual({ state: 'done', name: null });
  });

  it('refuses what is not a ClientHello', async () => {
    const hello = await clientHello('upstream.test');
    const serverHello = Buffer.from(hello);
    serverHello[5] = 0x02;
    expect(clientHelloServerName(serverHello)).toEqual({ state: 'invalid' });
    const truncatedBody = Buffer.from([0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0x00, 0x00, 0x04, 0x03, 0x03, 0x00, 0x00]);
    expect(clientHelloServerName(truncatedBody)).toEqual({ state: 'invalid' });
    expect(clientHelloServerName(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toEqual({ state: 'invalid' });
    expect(isTlsHandshake(Buffer.from('GET /'))).toBe(false);
  });

  it('gives up on a handshake longer than any ClientHello', () => {
    const endless = Buffer.alloc(MAX_CLIENT_HELLO + 10);
    endless.set([0x16, 0x03, 0x01, 0xff, 0xff]);
    expect(clientHelloServerName(endless)).toEqual({ state: 'invalid' });
  });
});
