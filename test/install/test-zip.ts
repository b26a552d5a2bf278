/** Builds zip archives for the tests with yazl, plus what yazl refuses to write (absolute and `..` names). */
import yazl from 'yazl';

export interface ZipItem {
  name: string;
  content?: string | Buffer;
  /** Unix mode with the file type bits (0o120777 is a symlink). */
  mode?: number;
  directory?: boolean;
}

export async function makeZip(items: readonly ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const item of items) {
    if (item.directory) zip.addEmptyDirectory(item.name);
    else {
      const content = typeof item.content === 'string' ? Buffer.from(item.content) : (item.content ?? Buffer.alloc(0));
      // Empty entries are stored, not deflated: thousands of them (the entry-count tests) take seconds otherwise.
      const options = {
        ...(item.mode === undefined ? {} : { mode: item.mode }),
        ...(content.length ? {} : { compress: false }),
      };
      zip.addBuffer(content, item.name, options);
    }
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Rewrites an entry name in place (local header and central directory). Names must have the same length: yazl
 * validates names, so a hostile one is written as a harmless placeholder and swapped afterwards.
 */
export function renameEntry(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('names must have the same length');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  let at = out.indexOf(needle);
  let count = 0;
  while (at !== -1) {
    out.write(to, at);
    count++;
    at = out.indexOf(needle, at + needle.length);
  }
  if (count === 0) throw new Error(`no entry named ${from}`);
  return out;
}

export function skillMd(
  name: string,
  description = `Does ${name} things.`,
  extra = '',
  body = 'Do the thing.\n',
): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}`;
}
