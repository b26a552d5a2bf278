/**
 * The egress CA is made once and kept, its leaves carry what strict verifiers want, and the trust bundle holds the
 * system roots, the CA and the operator's trusted certificates, nothing else from their files.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type EgressCa, leafFor, loadOrCreateCa, SYSTEM_BUNDLE, upstreamTrust, writeTrustBundle } from './ca';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-egress-ca-'));
  return () => fs.rmSync(tmp, { recursive: true, force: true });
});

const DAY = 24 * 60 * 60 * 1000;
const pems = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

describe('loadOrCreateCa', () => {
  it('makes a P-256 CA with its key at 0600, and loads the same one next time', async () => {
    const dir = path.join(tmp, 'egress');
    const ca = await loadOrCreateCa(dir);
    expect(fs.statSync(path.join(dir, 'ca.key')).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8')).toBe(ca.certPem);

    const cert = new x509.X509Certificate(ca.certPem);
    expect(cert.subject).toContain(`CN=skillchat egress CA (${os.hostname()})`);
    expect(cert.publicKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    const basic = cert.getExtension(x509.BasicConstraintsExtension)!;
    expect([basic.ca, basic.critical]).toEqual([true, true]);
    const usage = cert.getExtension(x509.KeyUsagesExtension)!;
    expect(usage.usages).toBe(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
    expect(cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId).toMatch(/^[0-9a-f]{40}$/);
    const years = (cert.notAfter.getTime() - Date.now()) / (365 * DAY);
    expect(years).toBeGreaterThan(9.9);
    expect(years).toBeLessThan(10.1);

    fs.chmodSync(path.join(dir, 'ca.key'), 0o644);
    const again = await loadOrCreateCa(dir);
    expect(again.certPem).toBe(ca.certPem);
    expect(fs.statSync(path.join(dir, 'ca.key')).mode & 0o777).toBe(0o600);
  });

  it('makes one CA when two callers race', async () => {
    const dir = path.join(tmp, 'egress');
    const [a, b] = await Promise.all([loadOrCreateCa(dir), loadOrCreateCa(dir)]);
    expect(a.certPem).toBe(b.certPem);
    expect(fs.readdirSync(dir).sort()).toEqual(['ca.key', 'ca.pem']);
  });

  it('refuses a corrupt or mismatched pair, naming the file but not where it lives', async () => {
    const dir = path.join(tmp, 'egress');
    await loadOrCreateCa(dir);
    const key = fs.readFileSync(path.join(dir, 'ca.key'), 'utf8');
    const refusal = (e: unknown) => {
      expect((e as Error).message).not.toContain(tmp);
      return (e as Error).message;
    };

    fs.writeFileSync(path.join(dir, 'ca.pem'), 'not a certificate');
    expect(await loadOrCreateCa(dir).catch(refusal)).toMatch(/ca\.pem is not a PEM certificate/);

    const other = await loadOrCreateCa(path.join(tmp, 'other'));
    fs.writeFileSync(path.join(dir, 'ca.pem'), other.certPem);
    expect(await loadOrCreateCa(dir).catch(refusal)).toMatch(/ca\.key does not belong to ca\.pem/);

    fs.writeFileSync(path.join(dir, 'ca.key'), key.replace(/[A-Za-z]/g, 'A'));
    expect(await loadOrCreateCa(dir).catch(refusal)).toMatch(/ca\.key is not a PEM ECDSA P-256 private key/);

    fs.rmSync(path.join(dir, 'ca.key'));
    expect(await loadOrCreateCa(dir).catch(refusal)).toMatch(/ca\.pem is there without ca\.key/);
  });
});

describe('leafFor', () => {
  let ca: EgressCa;
  beforeEach(async () => {
    ca = await loadOrCreateCa(path.join(tmp, 'egress'));
  });

  it('mints a short-lived server leaf with SAN, SKI and the AKI of the CA', async () => {
    const started = performance.now();
    const leaf = await leafFor(ca, 'api.example.org');
    const first = performance.now() - started;
    const cert = new x509.X509Certificate(leaf.certPem);
    expect(cert.subject).toBe('CN=api.example.org');
    expect(cert.issuer).toBe(new x509.X509Certificate(ca.certPem).subject);
    expect(cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON()).toEqual([
      { type: 'dns', value: 'api.example.org' },
    ]);
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.serverAuth]);
    expect(cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId).toMatch(/^[0-9a-f]{40}$/);
    expect(cert.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(
      new x509.X509Certificate(ca.certPem).getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
    );
    expect(cert.notBefore.getTime()).toBeLessThan(Date.now() - 30 * 60 * 1000);
    expect(cert.notAfter.getTime() - cert.notBefore.getTime()).toBeLessThanOrEqual(99 * DAY);
    expect(await cert.verify({ publicKey: ca.cert.publicKey, signatureOnly: true })).toBe(true);

    const again = performance.now();
    expect(await leafFor(ca, 'api.example.org')).toBe(leaf);
    const cached = performance.now() - again;
    const other = performance.now();
    await leafFor(ca, 'uploads.example.org');
    const second = performance.now() - other;
    console.info(
      `leaf: first ${first.toFixed(1)} ms (with the leaf key), another host ${second.toFixed(1)} ms, cached ${cached.toFixed(2)} ms`,
    );
  });

  it('puts an IP literal in an IP SAN, and shares one leaf key across hosts', async () => {
    const ip = await leafFor(ca, '127.0.0.1');
    const v6 = await leafFor(ca, '::1');
    const name = await leafFor(ca, 'tls.test');
    expect(
      new x509.X509Certificate(ip.certPem).getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON(),
    ).toEqual([{ type: 'ip', value: '127.0.0.1' }]);
    expect(
      new x509.X509Certificate(v6.certPem).getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON(),
    ).toEqual([{ type: 'ip', value: '::1' }]);
    expect(new Set([ip.keyPem, v6.keyPem, name.keyPem]).size).toBe(1);
  });

  it('mints a cached leaf again a week before it ends', async () => {
    const leaf = await leafFor(ca, 'tls.test');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 80 * DAY);
      expect(await leafFor(ca, 'tls.test')).toBe(leaf);
      vi.setSystemTime(Date.now() + 5 * DAY);
      const renewed = await leafFor(ca, 'tls.test');
      expect(renewed).not.toBe(leaf);
      expect(renewed.notAfter.getTime()).toBeGreaterThan(Date.now() + 80 * DAY);
      expect(await leafFor(ca, 'tls.test')).toBe(renewed);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the 256 most recently used leaves', async () => {
    const first = await leafFor(ca, 'h0.test');
    for (let i = 1; i < 256; i++) await leafFor(ca, `h${i}.test`);
    expect(await leafFor(ca, 'h0.test')).toBe(first);
    await leafFor(ca, 'h256.test'); // evicts h1, the least recently used
    expect(await leafFor(ca, 'h0.test')).toBe(first);
    const h1 = await leafFor(ca, 'h1.test');
    expect(await leafFor(ca, 'h1.test')).toBe(h1);
    expect(await leafFor(ca, 'h2.test')).not.toBe(undefined);
  });
});

describe('writeTrustBundle', () => {
  it('holds the system roots, the CA and only the certificates of each trust file', async () => {
    const ca = await loadOrCreateCa(path.join(tmp, 'egress'));
    const company = await loadOrCreateCa(path.join(tmp, 'company'));
    const trust = path.join(tmp, 'company-with-key.pem');
    const companyKey = fs.readFileSync(path.join(tmp, 'company', 'ca.key'), 'utf8');
    fs.writeFileSync(trust, `# our company CA\n${companyKey}\n${company.certPem}`);

    const files = await writeTrustBundle(path.join(tmp, 'egress'), ca, [trust]);
    expect(files).toEqual({
      bundle: path.join(tmp, 'egress', 'trust-bundle.pem'),
      ca: path.join(tmp, 'egress', 'skillchat-ca.pem'),
    });
    const bundle = fs.readFileSync(files.bundle, 'utf8');
    const system = fs.existsSync(SYSTEM_BUNDLE) ? pems(fs.readFileSync(SYSTEM_BUNDLE, 'utf8')) : tls.rootCertificates;
    expect(system.length).toBeGreaterThan(50);
    expect(pems(bundle)).toEqual([...system, ca.certPem.trim(), company.certPem.trim()]);
    expect(bundle).not.toContain('PRIVATE KEY');
    expect(bundle).not.toContain('our company');
    expect(fs.statSync(files.bundle).mode & 0o777).toBe(0o644);
    expect(fs.readFileSync(files.ca, 'utf8')).toBe(ca.certPem);

    expect(await upstreamTrust([trust])).toEqual([...system, company.certPem.trim()]);
  });

  it('rewrites the bundle only when its content changes', async () => {
    const dir = path.join(tmp, 'egress');
    const ca = await loadOrCreateCa(dir);
    const { bundle } = await writeTrustBundle(dir, ca, []);
    const before = fs.statSync(bundle);
    await writeTrustBundle(dir, ca, []);
    expect(fs.statSync(bundle).ino).toBe(before.ino);

    const company = await loadOrCreateCa(path.join(tmp, 'company'));
    await writeTrustBundle(dir, ca, [path.join(tmp, 'company', 'ca.pem')]);
    expect(fs.statSync(bundle).ino).not.toBe(before.ino);
    expect(fs.readFileSync(bundle, 'utf8')).toContain(company.certPem.trim());
  });

  it('names a trust file that is missing or holds no certificate', async () => {
    const dir = path.join(tmp, 'egress');
    const ca = await loadOrCreateCa(dir);
    const keyOnly = path.join(tmp, 'key-only.pem');
    fs.writeFileSync(keyOnly, fs.readFileSync(path.join(dir, 'ca.key')));
    const message = (files: string[]) => writeTrustBundle(dir, ca, files).then(String, (e: Error) => e.message);

    expect(await message([path.join(tmp, 'gone.pem')])).toBe('The network.trust file "gone.pem" does not exist.');
    expect(await message([keyOnly])).toBe('The network.trust file "key-only.pem" holds no PEM certificate.');
    expect(fs.existsSync(path.join(dir, 'trust-bundle.pem'))).toBe(false);
  });
});
