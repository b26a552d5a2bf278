/**
 * A trigger eval in its real setting: the catalog a new chat would get (the skill among everything installed, under
 * the same budget and access), the configured model. Shared by /admin, `skills eval trigger` and the description
 * proposals, which run it again with one description replaced.
 */
import type { LanguageModel } from 'ai';
import type { AccessResolver } from '../access/resolver';
import { buildSkillView } from '../chat/skill-view';
import type { AppConfig } from '../config';
import type { ModelRegistry } from '../model/registry';
import type { Matcher } from '../skills/catalog/match';
import { catalogDescription } from '../skills/load/arguments';
import type { Skill } from '../skills/types';
import { runTriggerCheck, type TriggerPrompt, type TriggerReport } from './trigger';

export interface EvalModel {
  model: LanguageModel;
  label: string;
  contextWindow?: number;
}

/** The model a new chat would get (the registry's default): what an eval runs against. */
export async function newChatModel(models: Pick<ModelRegistry, 'choose'>): Promise<EvalModel> {
  const { choice } = await models.choose(null);
  return { model: choice.model, label: choice.label, contextWindow: choice.contextWindow };
}

export interface EvalSetting {
  /** Every installed skill, the evaluated one among them. */
  skills: readonly Skill[];
  access: Pick<AccessResolver, 'resolveAll'>;
  config: Pick<AppConfig, 'catalog'>;
  model: EvalModel;
  /** The registry's matcher over `skills`, when there is one already. */
  matcher?: Matcher;
}

/** The skill with another description, as a proposal would make it (its other fields untouched). */
export function withDescription(skill: Skill, description: string): Skill {
  return { ...skill, description, frontmatter: { ...skill.frontmatter, description } };
}

export async function runTriggerEval(
  setting: EvalSetting,
  skill: Skill,
  prompts: readonly TriggerPrompt[],
  runs: number,
): Promise<TriggerReport> {
  // The evaluated version replaces the installed one of that name (a folder given to the CLI, a proposal).
  const replaced = !setting.skills.includes(skill);
  const skills = !replaced
    ? setting.skills
    : setting.skills.some((s) => s.name === skill.name)
      ? setting.skills.map((s) => (s.name === skill.name ? skill : s))
      : [...setting.skills, skill];
  const view = await buildSkillView({
    source: {
      skills,
      access: setting.access.resolveAll(skills),
      ...(!replaced && setting.matcher ? { matcher: setting.matcher } : {}),
    },
    config: setting.config,
    contextWindow: setting.model.contextWindow,
    chatId: `trigger-eval:${skill.name}`,
    relevanceText: '',
  });
  return runTriggerCheck({
    model: setting.model.model,
    catalog: view.catalog?.catalog ?? '{"available_skills":[]}',
    matcher: view.matcher(),
    skill: { name: skill.name, description: catalogDescription(skill) },
    prompts,
    runs,
  });
}
