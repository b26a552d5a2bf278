/**
 * The install operations as the web admin runs them: configured root and limits, `file:` URLs refused, the registry
 * rescanned after every change (so an installed skill is in the catalog and the slash menu without a restart), and
 * refusals shaped as `{ error, code, problems }` with no server paths in them.
 */
import path from 'node:path';
import type { AppConfig } from '../config';
import type { SkillRegistry } from '../skills/registry';
import { exportSkill } from './export';
import { type InstallResult, type InstallSource, installSkill, uninstallSkill } from './install';
import type { InstallError, InstallErrorKind } from './problems';

export interface InstallHost {
  config: AppConfig;
  registry: SkillRegistry;
}

export type InstallMode = 'install' | 'preview' | 'update';

export interface AdminInstallResult extends InstallResult {
  /** Set when the skill will not be served: the install root is not one of the skill roots. */
  notice?: string;
}

function isSkillRoot(host: InstallHost): boolean {
  const root = path.resolve(/*turbopackIgnore: true*/ host.config.install.root);
  return host.config.roots.some((r) => path.resolve(/*turbopackIgnore: true*/ r.path) === root);
}

export async function installForAdmin(
  host: InstallHost,
  source: InstallSource,
  mode: InstallMode,
): Promise<AdminInstallResult> {
  const root = path.resolve(/*turbopackIgnore: true*/ host.config.install.root);
  const current = await host.registry.current();
  const result = await installSkill(source, {
    root,
    install: host.config.install,
    limits: host.config.limits,
    mode,
    allowFileUrls: false,
    loadedElsewhere: (name) =>
      current.skills.some((s) => s.name === name && path.resolve(/*turbopackIgnore: true*/ s.root) !== root),
  });
  if (result.applied) await host.registry.rescan();
  return isSkillRoot(host)
    ? result
    : { ...result, notice: 'The install root is not one of the skill roots (install.root): the skill is not served' };
}

export async function uninstallForAdmin(host: InstallHost, name: string): Promise<void> {
  await uninstallSkill(host.config.install.root, name);
  await host.registry.rescan();
}

/** A loaded skill's `.skill` archive, or null when there is no such skill. */
export async function exportForAdmin(host: InstallHost, name: string): Promise<Buffer | null> {
  const skill = await host.registry.get(name);
  return skill ? exportSkill(skill) : null;
}

const STATUS: Record<InstallErrorKind, number> = { invalid: 400, conflict: 409, 'not-found': 404, fetch: 400 };
const CODE: Record<InstallErrorKind, string> = {
  invalid: 'bad_request:install',
  conflict: 'conflict:install',
  'not-found': 'not_found:install',
  fetch: 'bad_request:install-fetch',
};

/** Server paths (the install root and its staging folders) never reach the browser. */
function redact(text: string, root: string, label: string): string {
  return text.split(root).join(label);
}

/**
 * The refusal as JSON. `where`: the root the install went to when it is not the install root (a person's folder),
 * and what to call it instead of its path.
 */
export function installErrorResponse(
  error: InstallError,
  host: InstallHost,
  where: { root: string; label: string } = { root: host.config.install.root, label: '<install root>' },
): Response {
  const root = path.resolve(/*turbopackIgnore: true*/ where.root);
  const problems = error.problems.map((p) => ({ ...p, message: redact(p.message, root, where.label) }));
  const first = problems[0]?.message ?? 'The skill cannot be installed';
  const summary =
    problems.length === 1 ? first : `${problems.length} problems: ${problems.map((p) => p.message).join('; ')}`;
  return Response.json(
    { error: summary, code: CODE[error.kind], problems },
    { status: STATUS[error.kind], headers: { 'cache-control': 'no-store' } },
  );
}
