/**
 * The well-known discovery index (cloudflare/agent-skills-discovery-rfc v0.2.0) for one person's skills:
 * `GET /.well-known/agent-skills/index.json` lists each skill with its file digests and skill digest, and every file
 * is served at `/.well-known/agent-skills/{name}/{path}`, byte for byte, so the digests match what is fetched.
 *
 * Only the `version: "0.2.0"` form with `files` is written. The entries carry no `url` or `type`: in the RFC's newer
 * `$schema` form those mean "this one artifact has this digest", and here `digest` is the skill-level digest, so a
 * client of that form would fetch SKILL.md and fail its check.
 */
import { readPublishedFile } from './publication';
import { type ServedSkill, type SkillServerDeps, servedSkill } from './served';

export const INDEX_VERSION = '0.2.0';

export interface WellKnownIndex {
  version: typeof INDEX_VERSION;
  skills: Array<{ name: string; description: string; digest: string; files: Array<{ path: string; digest: string }> }>;
}

export function wellKnownIndex(served: readonly ServedSkill[]): WellKnownIndex {
  return {
    version: INDEX_VERSION,
    skills: served.map(({ published }) => ({
      name: published.name,
      description: published.description,
      digest: published.digest,
      files: published.files.map((f) => ({ path: f.path, digest: f.digest })),
    })),
  };
}

/** A content type for a served file: text types say UTF-8 (the reader found the bytes to be UTF-8 text). */
function contentType(mediaType: string, text: boolean): string {
  return text && (mediaType.startsWith('text/') || mediaType.endsWith('json') || mediaType.endsWith('yaml'))
    ? `${mediaType}; charset=utf-8`
    : text
      ? mediaType
      : mediaType.startsWith('text/')
        ? 'application/octet-stream'
        : mediaType;
}

/** The file `path` of skill `name` as served to `personId`, or null (not theirs, not published, gone). */
export async function wellKnownFile(
  deps: SkillServerDeps,
  personId: string,
  name: string,
  path: string,
): Promise<{ data: Buffer; contentType: string; digest: string } | null> {
  const served = await servedSkill(deps, personId, name);
  if (!served) return null;
  const read = await readPublishedFile(served.skill, served.published, path);
  if (!read) return null;
  return {
    data: read.data,
    contentType: contentType(read.file.mediaType, read.text !== null),
    digest: read.file.digest,
  };
}
