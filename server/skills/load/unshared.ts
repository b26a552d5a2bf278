/**
 * `text` as a string of its own. V8 keeps a substring of 13 characters or more as a slice of its source, so a name
 * cut out of a skill file's decoded text, or a word cut out of a description, keeps that whole text alive for as
 * long as the piece is kept (a loaded skill, a cache entry). A JSON round trip copies any string exactly, lone
 * surrogates included.
 */
export function unshared(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}
