/**
 * Any loaded skill as a `.skill` archive (a zip whose entries sit under `<name>/`), written with yazl. Regular files
 * only: a link in the folder is neither followed nor stored, so an export never carries a file from outside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';

async function collect(dir: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    const entries = await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true });
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !(rel === '' && entry.name === '.git')) pending.push(childRel);
      else if (entry.isFile()) files.push(childRel);
    }
  }
  return files.sort();
}

/** The zip's bytes. Entries are stored with mode 0644 and a fixed time, so exporting twice gives the same archive. */
export async function exportSkill(skill: { name: string; dir: string }): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = new Date(Date.UTC(2020, 0, 1));
  for (const rel of await collect(skill.dir)) {
    zip.addBuffer(await fs.promises.readFile(path.join(skill.dir, rel)), `${skill.name}/${rel}`, {
      mtime,
      mode: 0o100644,
    });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
