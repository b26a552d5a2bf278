/**
 * The server's own egress CA, the leaves it mints for the hosts whose TLS the proxy terminates (a secret header to
 * add, a package index to keep to GET), and the trust bundle every run trusts. ECDSA P-256 through Node's WebCrypto
 * and @peculiar/x509; the extensions are the ones Python 3.13's strict verification insists on (SKI on the CA, AKI
 * on the leaf, critical basic constraints).
 */
import 'reflect-metadata';
import { createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import fs from 'node:fs/promises';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import * as x509 from '@peculiar/x509';

const subtle = webcrypto.subtle as SubtleCrypto;
x509.cryptoProvider.set(webcrypto as Crypto);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;
const CA_YEARS = 10;
/** Leaves live 90 days (under the 99 some clients cap at), from an hour back so a slow clock in a run still accepts. */
const LEAF_DAYS = 90;
const LEAF_BACKDATE = 60 * 60 * 1000;
/** A cached leaf this close to its end is minted again. */
const LEAF_RENEW = 7 * DAY;
const LEAF_CACHE = 256;
/** What Debian and its derivatives ship as the system bundle; elsewhere Node's own roots stand in. */
export const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export interface EgressCa {
  cert: x509.X509Certificate;
  certPem: string;
  privateKey: CryptoKey;
}

/** A leaf for one host, ready to hand to `tls.createSecureContext`. */
export interface Leaf {
  host: string;
  certPem: string;
  keyPem: string;
  context: tls.SecureContext;
  notAfter: Date;
}

interface LeafState {
  /** One key for every leaf of this CA, as srt does: the leaf key never leaves the process. */
  key: Promise<LeafKey>;
  leaves: Map<string, Promise<Leaf>>;
}
const leafStates = new WeakMap<EgressCa, LeafState>();

/** `<dir>/ca.pem` and `<dir>/ca.key`, loaded when present, made (once, even with two processes racing) when not. */
export async function loadOrCreateCa(dir: string): Promise<EgressCa> {
  const pemFile = path.join(dir, 'ca.pem');
  const keyFile = path.join(dir, 'ca.key');
  for (let attempt = 0; ; attempt++) {
    const [certPem, keyPem] = await Promise.all([readIfPresent(pemFile), readIfPresent(keyFile)]);
    if (certPem !== null && keyPem !== null) {
      // Others must not read the key, whatever wrote it last.
      if ((await fs.stat(keyFile)).mode & 0o077) await fs.chmod(keyFile, 0o600);
      return parseCa(certPem, keyPem);
    }
    // Another process links ca.key before ca.pem: give it a moment before calling the pair broken.
    if (keyPem !== null && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (certPem !== null || keyPem !== null) {
      const [present, missing] = certPem !== null ? ['ca.pem', 'ca.key'] : ['ca.key', 'ca.pem'];
      throw new Error(
        `The egress CA is incomplete: ${present} is there without ${missing}. Remove ${present} to make a new CA (runs will trust the new one).`,
      );
    }
    await createCa(dir, pemFile, keyFile);
  }
}

/** Writes a new CA beside any other writer: the key is linked into place first, and the loser loads the winner's. */
async function createCa(dir: string, pemFile: string, keyFile: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const name = `skillchat egress CA (${os.hostname()})`;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: [{ CN: [name] }, { O: ['skillchat'] }],
    notBefore: new Date(now - LEAF_BACKDATE),
    notAfter: new Date(now + CA_YEARS * 365 * DAY),
    signingAlgorithm: SIGNING,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const tag = `.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(keyFile + tag, await privateKeyPem(keys.privateKey), { mode: 0o600 });
  await fs.writeFile(pemFile + tag, cert.toString('pem'), { mode: 0o644 });
  try {
    await fs.link(keyFile + tag, keyFile);
    await fs.link(pemFile + tag, pemFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await Promise.all([fs.rm(keyFile + tag, { force: true }), fs.rm(pemFile + tag, { force: true })]);
  }
}

async function parseCa(certPem: string, keyPem: string): Promise<EgressCa> {
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(certPem);
  } catch {
    throw new Error('The egress CA file ca.pem is not a PEM certificate. Remove ca.pem and ca.key to make a new CA.');
  }
  let privateKey: CryptoKey;
  let publicDer: Buffer;
  try {
    privateKey = await subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), EC, false, ['sign']);
    publicDer = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
  } catch {
    throw new Error(
      'The egress CA file ca.key is not a PEM ECDSA P-256 private key. Remove ca.pem and ca.key to make a new CA.',
    );
  }
  if (!publicDer.equals(Buffer.from(cert.publicKey.rawData))) {
    throw new Error('The egress CA file ca.key does not belong to ca.pem. Remove both to make a new CA.');
  }
  return { cert, certPem: cert.toString('pem'), privateKey };
}

/** The leaf for `host` (a name or an IP literal), signed by `ca`; cached per CA, renewed a week before it ends. */
export function leafFor(ca: EgressCa, host: string): Promise<Leaf> {
  let state = leafStates.get(ca);
  if (!state) {
    state = { key: leafKey(ca), leaves: new Map() };
    leafStates.set(ca, state);
  }
  const { leaves } = state;
  const cached = leaves.get(host);
  if (cached) {
    leaves.delete(host);
    leaves.set(host, cached);
    return cached.then((leaf) => {
      if (leaf.notAfter.getTime() - Date.now() > LEAF_RENEW) return leaf;
      // Callers that waited on the same old leaf share one renewal.
      const current = leaves.get(host);
      return current && current !== cached ? current : renew(ca, host);
    });
  }
  return renew(ca, host);
}

function renew(ca: EgressCa, host: string): Promise<Leaf> {
  const state = leafStates.get(ca)!;
  const leaf = mintLeaf(ca, state, host);
  state.leaves.delete(host);
  state.leaves.set(host, leaf);
  leaf.catch(() => state.leaves.get(host) === leaf && state.leaves.delete(host));
  while (state.leaves.size > LEAF_CACHE) state.leaves.delete(state.leaves.keys().next().value as string);
  return leaf;
}

interface LeafKey {
  keys: CryptoKeyPair;
  pem: string;
  /** The same for every leaf of the CA, so made once. */
  ski: x509.SubjectKeyIdentifierExtension;
  aki: x509.AuthorityKeyIdentifierExtension;
}

async function leafKey(ca: EgressCa): Promise<LeafKey> {
  const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  return {
    keys,
    pem: await privateKeyPem(keys.privateKey),
    ski: await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    aki: await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
  };
}

async function mintLeaf(ca: EgressCa, state: LeafState, host: string): Promise<Leaf> {
  const { keys, pem, ski, aki } = await state.key;
  const now = Date.now();
  const notAfter = new Date(Math.min(now + LEAF_DAYS * DAY, ca.cert.notAfter.getTime()));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: [{ CN: [host] }],
    issuer: ca.cert.subjectName,
    notBefore: new Date(now - LEAF_BACKDATE),
    notAfter,
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: isIP(host) ? 'ip' : 'dns', value: host }]),
      ski,
      aki,
    ],
  });
  const certPem = cert.toString('pem');
  return { host, certPem, keyPem: pem, context: tls.createSecureContext({ cert: certPem, key: pem }), notAfter };
}

/**
 * Writes `<dir>/trust-bundle.pem` (the system roots, the skillchat CA, the certificates of each `network.trust`
 * file: what every TLS client in a run trusts) and `<dir>/skillchat-ca.pem` (the CA alone, for
 * `NODE_EXTRA_CA_CERTS`). A file is rewritten only when its content changed, so a bind of it stays valid.
 */
export async function writeTrustBundle(
  dir: string,
  ca: EgressCa,
  trustFiles: string[],
): Promise<{ bundle: string; ca: string }> {
  const extra = await trustCertificates(trustFiles);
  const bundle = path.join(dir, 'trust-bundle.pem');
  const caFile = path.join(dir, 'skillchat-ca.pem');
  const roots = await systemRoots();
  await fs.mkdir(dir, { recursive: true });
  await writeIfChanged(bundle, `${[...roots, ca.certPem, ...extra].map((pem) => pem.trim()).join('\n')}\n`);
  await writeIfChanged(caFile, ca.certPem);
  return { bundle, ca: caFile };
}

/** The PEMs an upstream must chain to: the system roots and the `network.trust` certificates. */
export async function upstreamTrust(trustFiles: string[]): Promise<string[]> {
  return [...(await systemRoots()), ...(await trustCertificates(trustFiles))];
}

async function systemRoots(): Promise<string[]> {
  const system = await readIfPresent(SYSTEM_BUNDLE);
  return system === null ? [...tls.rootCertificates] : certificateBlocks(system);
}

/** The CERTIFICATE blocks of each file (keys and anything else in it are left out); named by base name in errors. */
async function trustCertificates(files: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) {
    const text = await readIfPresent(file);
    const name = path.basename(file);
    if (text === null) throw new Error(`The network.trust file "${name}" does not exist.`);
    const blocks = certificateBlocks(text);
    if (blocks.length === 0) throw new Error(`The network.trust file "${name}" holds no PEM certificate.`);
    out.push(...blocks);
  }
  return out;
}

function certificateBlocks(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g) ?? [];
}

async function writeIfChanged(file: string, content: string): Promise<void> {
  if ((await readIfPresent(file)) === content) return;
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, content, { mode: 0o644 });
  await fs.chmod(tmp, 0o644);
  await fs.rename(tmp, file);
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** 16 random bytes, first bit clear and first byte non-zero: a positive serial DER encodes without padding. */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}
