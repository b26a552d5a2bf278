import { describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES, uploadedSource } from './upload';

function post(form: FormData, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1/api/me/personal-skills', { method: 'POST', body: form, headers });
}

describe('an install upload', () => {
  it('a folder is its files, each with the relative path the browser gave', async () => {
    const form = new FormData();
    form.append('files', new Blob(['---\nname: a\n---\n']), 'SKILL.md');
    form.append('paths', 'a/SKILL.md');
    form.append('files', new Blob(['# Guide\n']), 'guide.md');
    form.append('paths', 'a/references/guide.md');
    const { source, mode } = await uploadedSource(post(form));
    expect(mode).toBe('install');
    expect(source.kind).toBe('files');
    if (source.kind !== 'files') return;
    expect(source.files.map((f) => [f.path, f.bytes.toString()])).toEqual([
      ['a/SKILL.md', '---\nname: a\n---\n'],
      ['a/references/guide.md', '# Guide\n'],
    ]);
  });

  it('an archive is its bytes; a mode is read', async () => {
    const form = new FormData();
    form.set('file', new Blob([Buffer.from('PK')]), 'a.zip');
    form.set('mode', 'preview');
    const { source, mode } = await uploadedSource(post(form));
    expect(mode).toBe('preview');
    expect(source).toEqual({ kind: 'archive-bytes', bytes: Buffer.from('PK') });
  });

  it('refuses files without their paths, a body over the cap, and neither field', async () => {
    const unpaired = new FormData();
    unpaired.append('files', new Blob(['x']), 'x');
    await expect(uploadedSource(post(unpaired))).rejects.toMatchObject({ status: 400 });
    const big = new FormData();
    big.set('file', new Blob(['x']), 'a.zip');
    await expect(uploadedSource(post(big, { 'content-length': String(MAX_UPLOAD_BYTES + 1) }))).rejects.toMatchObject({
      status: 413,
    });
    await expect(uploadedSource(post(new FormData()))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('a folder as `files`'),
    });
  });
});
