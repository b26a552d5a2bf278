/**
 * Generated skill trees for the benchmarks: deterministic (seeded), with realistic sizes: SKILL.md of 2-20 KB with
 * name, description (60-1,000 characters), license and metadata, and a few resources per skill (a reference, a
 * script, sometimes an asset).
 */
import fs from 'node:fs';
import path from 'node:path';

/** mulberry32: a small seeded PRNG, so every run generates the same skills. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// biome-ignore format: word lists
const TOPICS = ['pdf', 'csv', 'json', 'excel', 'docx', 'slides', 'invoice', 'calendar', 'email', 'git', 'docker',
  'kubernetes', 'terraform', 'sql', 'postgres', 'redis', 'image', 'video', 'audio', 'chart', 'diagram', 'markdown',
  'latex', 'api', 'oauth', 'webhook', 'log', 'metric', 'trace', 'test', 'lint', 'release', 'changelog', 'translation',
  'accessibility', 'budget', 'contract', 'resume', 'recipe', 'weather', 'travel', 'shopping', 'fitness', 'music'];
// biome-ignore format: word lists
const VERBS = ['extract', 'convert', 'merge', 'split', 'validate', 'summarize', 'generate', 'review', 'format',
  'analyze', 'migrate', 'deploy', 'monitor', 'debug', 'optimize', 'audit', 'translate', 'plan', 'draft', 'index'];
// biome-ignore format: word lists
const WORDS = ['the', 'files', 'data', 'tables', 'fields', 'records', 'reports', 'pages', 'sections', 'values',
  'with', 'from', 'into', 'for', 'and', 'when', 'user', 'asks', 'about', 'project', 'team', 'output', 'input',
  'schema', 'template', 'errors', 'warnings', 'options', 'steps', 'results', 'quickly', 'safely', 'carefully'];

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

function sentence(rnd: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(rnd, i % 4 === 0 ? TOPICS : i % 4 === 1 ? VERBS : WORDS));
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function textOfLength(rnd: () => number, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const s = sentence(rnd, 6 + Math.floor(rnd() * 12));
    parts.push(s);
    length += s.length + 1;
  }
  return parts.join(' ').slice(0, chars).trimEnd();
}

export interface GeneratedSkill {
  name: string;
  dir: string;
  file: string;
}

export function skillName(rnd: () => number, index: number): string {
  return `${pick(rnd, TOPICS)}-${pick(rnd, VERBS)}-${String(index).padStart(5, '0')}`;
}

function body(rnd: () => number, bytes: number): string {
  const sections: string[] = [];
  let length = 0;
  let n = 1;
  while (length < bytes) {
    const section = [
      `## Step ${n++}: ${sentence(rnd, 4).slice(0, -1)}`,
      '',
      textOfLength(rnd, 300 + Math.floor(rnd() * 600)),
      '',
      '```bash',
      `python scripts/run.py --input data/${pick(rnd, TOPICS)}.${pick(rnd, ['csv', 'json', 'pdf'])} --verbose`,
      '```',
      '',
      `- ${sentence(rnd, 8)}`,
      `- ${sentence(rnd, 10)}`,
      `- See [the reference](references/REFERENCE.md) for ${pick(rnd, WORDS)} ${pick(rnd, TOPICS)} details.`,
      '',
    ].join('\n');
    sections.push(section);
    length += section.length;
  }
  return sections.join('\n');
}

/** The SKILL.md text of a generated skill; `variant` changes the description (for edit benchmarks). */
export function skillFileText(name: string, rnd: () => number, variant = 0): string {
  const description = textOfLength(rnd, 60 + Math.floor(rnd() ** 2 * 940)).replace(/[:#]/g, '');
  const bodyBytes = 2_000 + Math.floor(rnd() * 18_000);
  return [
    '---',
    `name: ${name}`,
    `description: ${JSON.stringify(variant ? `${description} (edit ${variant})` : description)}`,
    'license: MIT',
    'metadata:',
    `  author: bench-${Math.floor(rnd() * 100)}`,
    `  version: "1.${Math.floor(rnd() * 10)}"`,
    '---',
    `# ${name}`,
    '',
    body(rnd, bodyBytes),
  ].join('\n');
}

/**
 * Writes `count` skills under `root` (created; must not hold other skills). Returns them in index order.
 * Resources: references/REFERENCE.md (1-4 KB) and scripts/run.sh for every skill, assets/template.json for every
 * third one.
 */
export function generateSkills(root: string, count: number, seed = 1): GeneratedSkill[] {
  const rnd = random(seed);
  fs.mkdirSync(root, { recursive: true });
  const skills: GeneratedSkill[] = [];
  for (let i = 0; i < count; i++) {
    const name = skillName(rnd, i);
    const dir = path.join(root, name);
    fs.mkdirSync(path.join(dir, 'references'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'scripts'));
    const file = path.join(dir, 'SKILL.md');
    fs.writeFileSync(file, skillFileText(name, rnd));
    fs.writeFileSync(path.join(dir, 'references', 'REFERENCE.md'), textOfLength(rnd, 1_000 + rnd() * 3_000));
    fs.writeFileSync(path.join(dir, 'scripts', 'run.sh'), `#!/bin/sh\necho "${name}"\n`, { mode: 0o755 });
    if (i % 3 === 0) {
      fs.mkdirSync(path.join(dir, 'assets'));
      fs.writeFileSync(path.join(dir, 'assets', 'template.json'), JSON.stringify({ name, fields: [1, 2, 3] }));
    }
    skills.push({ name, dir, file });
  }
  return skills;
}
