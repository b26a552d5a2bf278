/**
 * The trigger check as /admin runs it: the skill's catalog as a chat would build it, the configured model, the
 * registry's matcher; each run stored with its date and the description's hash (so before/after an edit compare).
 */
import type { LanguageModel } from 'ai';
import type { App } from '../app';
import { buildSkillView } from '../chat/skill-view';
import { addTriggerCheck, listTriggerChecks } from '../db';
import { AppError } from '../errors';
import { catalogDescription } from '../skills/load/arguments';
import { MAX_PROMPTS, MAX_RUNS, runTriggerCheck, type TriggerPrompt, type TriggerReport } from './trigger-check';

export interface StoredTriggerCheck {
  id: number;
  at: string;
  model: string;
  descriptionHash: string;
  report: TriggerReport;
}

type TriggerHost = Pick<App, 'registry' | 'access' | 'config' | 'db'> & {
  model: { model: LanguageModel; label: string; contextWindow?: number };
};

export async function storedTriggerChecks(host: Pick<App, 'db'>, name: string): Promise<StoredTriggerCheck[]> {
  return (await listTriggerChecks(host.db, name)).map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    model: r.model,
    descriptionHash: r.descriptionHash,
    report: JSON.parse(r.report) as TriggerReport,
  }));
}

export async function runStoredTriggerCheck(
  host: TriggerHost,
  name: string,
  prompts: TriggerPrompt[],
  runs: number,
): Promise<StoredTriggerCheck> {
  const skill = await host.registry.get(name);
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" not found`);
  const cleaned = prompts.map((p) => ({ ...p, text: p.text.trim() })).filter((p) => p.text !== '');
  if (cleaned.length === 0) throw new AppError('bad_request:trigger-check', 'Give at least one example prompt');
  if (cleaned.length > MAX_PROMPTS) {
    throw new AppError('bad_request:trigger-check', `At most ${MAX_PROMPTS} example prompts`);
  }
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
    throw new AppError('bad_request:trigger-check', `Runs per prompt must be 1-${MAX_RUNS}`);
  }
  const current = await host.registry.current();
  const view = await buildSkillView({
    source: {
      skills: current.skills,
      access: host.access.resolveAll(current.skills),
      matcher: await host.registry.matcher(),
    },
    config: host.config,
    contextWindow: host.model.contextWindow,
    chatId: `trigger-check:${name}`,
    relevanceText: '',
  });
  const report = await runTriggerCheck({
    model: host.model.model,
    catalog: view.catalog?.catalog ?? '{"available_skills":[]}',
    matcher: view.matcher(),
    skill: { name: skill.name, description: catalogDescription(skill) },
    prompts: cleaned,
    runs,
  });
  const at = new Date();
  const id = await addTriggerCheck(host.db, {
    skillName: skill.name,
    descriptionHash: report.descriptionHash,
    model: host.model.label,
    runs: report.runs,
    report: JSON.stringify(report),
    at,
  });
  return { id, at: at.toISOString(), model: host.model.label, descriptionHash: report.descriptionHash, report };
}
