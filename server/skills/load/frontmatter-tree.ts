/**
 * The shape both frontmatter readers produce (the full YAML parser in frontmatter.ts and the fast path in
 * frontmatter-fast.ts). Its own module so neither reader imports the other's types: frontmatter.ts depends on the
 * fast path, never the reverse.
 */

/** A parsed YAML value with the failsafe schema: strings, lists and string-keyed maps (in source order). */
export type YamlValue = string | YamlValue[] | YamlMap;
export type YamlMap = Map<string, YamlValue>;
