/**
 * The default limits, without zod: `skills validate` needs them, and loading zod (with the config schema) is a
 * third of that command's start-up. server/config.ts's schema takes its defaults from here, so there is one source.
 */

/** What discovery and the skill readers are bounded by; `limits` in skillchat.config.json (checked in config.ts). */
export interface Limits {
  /** Bytes of SKILL.md read before parsing; larger files are not loaded. */
  maxSkillFileBytes: number;
  /** Bytes of frontmatter parsed (yaml's duplicate-key check is quadratic). */
  maxFrontmatterBytes: number;
  /** Bytes of a resource returned to the model; more is truncated with a notice. */
  maxResourceBytes: number;
  /** How deep discovery descends inside a root looking for skill folders. */
  maxDepth: number;
  /** Hidden characters (tag, bidi, zero-width) in SKILL.md: `warn` loads the skill with a warning, `block` does not. */
  hiddenText: 'warn' | 'block';
  /** Folders discovery visits per root before it stops with a `visit-cap` warning. */
  maxFoldersPerRoot: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSkillFileBytes: 256 * 1024,
  maxFrontmatterBytes: 32 * 1024,
  maxResourceBytes: 64 * 1024,
  maxDepth: 6,
  hiddenText: 'warn',
  maxFoldersPerRoot: 25_000,
};
