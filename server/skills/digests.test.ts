import { describe, expect, it } from 'vitest';
import { digestHex, fileDigest, skillDigest } from './digests';

describe('skill digests (agent-skills-discovery-rfc v0.2.0)', () => {
  it("reproduces the RFC's worked example", () => {
    const skill = fileDigest('# Hello\n');
    const script = fileDigest('#!/bin/sh\n');
    expect(skill).toBe('sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be');
    expect(script).toBe('sha256:a8076d3d28d21e02012b20eaf7dbf75409a6277134439025f282e368e3305abf');
    const files = [
      { path: 'scripts/run.sh', digest: script },
      { path: 'SKILL.md', digest: skill },
    ];
    expect(skillDigest(files)).toBe('sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544105c4185a7c4ab12eb1e');
  });

  it('sorts paths by bytes, not by locale', () => {
    const d = fileDigest('x');
    // "B" (0x42) sorts before "a" (0x61) in byte order; localeCompare would put "a" first.
    const lines = skillDigest([
      { path: 'a.md', digest: d },
      { path: 'B.md', digest: d },
    ]);
    expect(lines).toBe(fileDigest(`B.md\0${digestHex(d)}\na.md\0${digestHex(d)}\n`));
  });

  it('reads a digest with or without its prefix, and refuses anything else', () => {
    expect(digestHex(`sha256:${'A'.repeat(64)}`)).toBe('a'.repeat(64));
    expect(digestHex('b'.repeat(64))).toBe('b'.repeat(64));
    expect(digestHex('sha512:00')).toBeNull();
  });
});
