/**
 * Content digests of a skill's files, as the well-known discovery index (agent-skills-discovery-rfc v0.2.0) and the
 * MCP skills extension write them: `sha256:<64 lowercase hex>` of a file's raw bytes, and for a whole skill the
 * SHA-256 of the lines `{path}\0{hex}\n`, one per file, sorted by path in byte order. The server that publishes
 * skills and the installer that verifies them both use these, so the two cannot drift apart.
 */
import { createHash } from 'node:crypto';

/** The 64 lowercase hex digits of SHA-256 over `bytes`. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `sha256:<hex>` of `bytes`. */
export function fileDigest(bytes: Uint8Array | string): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/** The hex of a `sha256:<hex>` digest (or of a bare hex), lowercased; null when it is neither. */
export function digestHex(digest: string): string | null {
  const match = /^(?:sha256:)?([0-9a-fA-F]{64})$/.exec(digest);
  return match ? match[1]!.toLowerCase() : null;
}

/** Byte order of the UTF-8 encodings, as the RFC says (not `localeCompare`, not UTF-16 code units). */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The skill-level digest over `files` (each `digest` as `sha256:<hex>` or bare hex), as `sha256:<hex>`. */
export function skillDigest(files: ReadonlyArray<{ path: string; digest: string }>): string {
  const manifest = [...files]
    .sort((a, b) => compareBytes(a.path, b.path))
    .map((f) => `${f.path}\0${digestHex(f.digest) ?? f.digest}\n`)
    .join('');
  return fileDigest(Buffer.from(manifest, 'utf8'));
}
