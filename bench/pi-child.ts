/**
 * pi's skills loader (badlogic/pi-mono's coding agent) in a fresh process, over one root: the reference a cold
 * `skills list --json` is measured against (bench/cli.ts). It is not vendored: point SKILLCHAT_PI_SKILLS at the
 * `skills.ts` of a pi-mono checkout (packages/coding-agent/src/core/skills.ts; its dependency `ignore` is a
 * devDependency here). Times the load call alone, in-process, as pi pays it when it starts: not node, tsx or the
 * imports. Prints one JSON line.
 *
 *   SKILLCHAT_PI_SKILLS=/path/to/pi-mono/packages/coding-agent/src/core/skills.ts tsx bench/pi-child.ts <root>
 */
const piModule = process.env.SKILLCHAT_PI_SKILLS;
if (!piModule) throw new Error('set SKILLCHAT_PI_SKILLS to the skills.ts of a pi-mono checkout');
const { loadSkillsFromDir } = (await import(piModule)) as {
  loadSkillsFromDir: (options: { dir: string; source: string }) => { skills: unknown[]; diagnostics: unknown[] };
};

const [root] = process.argv.slice(2);
if (!root) throw new Error('usage: pi-child.ts <root>');
const started = performance.now();
const cpu = process.cpuUsage();
const { skills, diagnostics } = loadSkillsFromDir({ dir: root, source: 'path' });
const { user, system } = process.cpuUsage(cpu);
const loadMs = performance.now() - started;
const cpuMs = (user + system) / 1000;
process.stdout.write(`${JSON.stringify({ loadMs, cpuMs, skills: skills.length, diagnostics: diagnostics.length })}\n`);

export {};
