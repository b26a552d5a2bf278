/**
 * pi's skills loader (bench/vendor/pi/, badlogic/pi-mono's coding agent) in a fresh process, over one root: the
 * reference a cold `skills list --json` is measured against (bench/cli.ts). Times the load call alone, in-process,
 * as pi pays it when it starts: not node, tsx or the imports. Prints one JSON line.
 *
 *   tsx bench/pi-child.ts <root>
 */
import { loadSkillsFromDir } from './vendor/pi/skills';

const [root] = process.argv.slice(2);
if (!root) throw new Error('usage: pi-child.ts <root>');
const started = performance.now();
const cpu = process.cpuUsage();
const { skills, diagnostics } = loadSkillsFromDir({ dir: root, source: 'path' });
const { user, system } = process.cpuUsage(cpu);
const loadMs = performance.now() - started;
const cpuMs = (user + system) / 1000;
process.stdout.write(`${JSON.stringify({ loadMs, cpuMs, skills: skills.length, diagnostics: diagnostics.length })}\n`);
