/**
 * Diagnostic codes, the closed set: a new problem gets its code here first, so /admin, `skills list` and tests can
 * rely on the list.
 *
 * What counts as a problem: an `error` or a `warning`. An `info` diagnostic (a recovered unquoted colon, say) is
 * worth showing but does not make a skill need attention. The one derivation, for /admin, the rescan route, the
 * server log and `skills list`.
 */
import type { Diagnostic } from '../types';

export const DIAGNOSTIC_CODES = [
  // Roots and discovery (discovery.ts, walk.ts, collisions.ts, registry.ts)
  'root-missing',
  'root-not-directory',
  'root-unreadable',
  'folder-unreadable',
  'name-collision',
  'watch-failed',
  'link-to-ancestor',
  'own-folder',
  'visit-cap',
  // Skills served by MCP servers (mcp/skills.ts): the listing failed, an entry was refused, a dynamic skill
  'mcp-skills-failed',
  'mcp-skill-refused',
  'mcp-skill-dynamic',
  // Names that look like another loaded skill's (confusables.ts)
  'confusable-name',
  'mixed-script-name',
  // The skill file (skill-file.ts)
  'skill-dir-unreadable',
  'skill-file-missing',
  'skill-file-unreadable',
  'skill-file-not-regular',
  'skill-file-too-large',
  'skill-file-invalid-utf8',
  'license-not-string',
  'allowed-tools-not-string',
  'metadata-value-not-string',
  'metadata-not-mapping',
  'extension-not-string',
  'extension-not-boolean',
  // Recognised extension fields (extensions.ts), hidden characters (hidden-text.ts), a description written as
  // instructions to the model (instruction-like.ts)
  'extension-fields',
  'hidden-text',
  'instruction-like-description',
  // Frontmatter (frontmatter.ts, frontmatter-fast.ts)
  'frontmatter-missing',
  'frontmatter-unclosed',
  'frontmatter-too-large',
  'frontmatter-not-mapping',
  'yaml-invalid',
  'yaml-tag-ignored',
  'yaml-recovered-colon',
  'yaml-recovered-quoted',
  'yaml-comment-truncated',
  // skills-ref's rules (validate.ts)
  'name-missing',
  'name-empty',
  'name-too-long',
  'name-not-lowercase',
  'name-hyphen-edge',
  'name-consecutive-hyphens',
  'name-invalid-characters',
  'name-mismatch',
  'description-missing',
  'description-empty',
  'description-too-long',
  'compatibility-not-string',
  'compatibility-too-long',
  'unexpected-fields',
  // What a skill declares it needs (server/egress/declarations.ts): metadata.network, metadata.secrets
  'network-declaration',
  'secrets-declaration',
] as const;

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

/**
 * A name that would decide a folder the app writes (an install, a skill written in the browser) must be clean:
 * where discovery only warns about these, the install root's writers refuse them.
 */
export const FOLDER_NAME_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  'name-missing',
  'name-empty',
  'name-too-long',
  'name-not-lowercase',
  'name-hyphen-edge',
  'name-consecutive-hyphens',
  'name-invalid-characters',
]);

export function isProblem(diagnostic: Pick<Diagnostic, 'severity'>): boolean {
  return diagnostic.severity !== 'info';
}
