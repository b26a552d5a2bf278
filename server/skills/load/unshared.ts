/**
 * `text` as a string of its own. V8 keeps a substring of 13 characters or more as a slice of its source, so a name
 * cut out of a skill file's decoded text, or a word cut out of a description, keeps that whole text alive for as
 * long as the piece is kept (a loaded skill, a cache entry). Latin-1 text goes through its bytes (a cold scan copies
 * every description, and this is several times faster than JSON); any other text through a JSON round trip, which
 * copies any string exactly, lone surrogates included.
 */
export function unshared(text: string): string {
  if (text.length < 13) return text;
  return BEYOND_LATIN1.test(text)
    ? (JSON.parse(JSON.stringify(text)) as string)
    : Buffer.from(text, 'latin1').toString('latin1');
}

const BEYOND_LATIN1 = /[^\x00-\xff]/;
