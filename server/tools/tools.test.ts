/** What is derived from the tool declarations: names, descriptions from the .txt files, the tool set, the filter. */
import { asSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config';
import { catalogBlock } from '../prompt/catalog-block';
import { resolveExecutionConfig } from '../sandbox/config';
import type { Skill } from '../skills/types';
import { createTurnTools, needsConsent, offeredTools, type SkillToolContext, TOOL_DECLARATIONS } from '.';
import { TOOL_ACTIVATE, TOOL_READ_RESOURCE, TOOL_RUN_SCRIPT, TOOL_SEARCH, TOOL_SHELL, toolDisplayName } from './names';

const skill = { name: 'demo', dir: '/nonexistent/demo' } as Skill;
const ctx = (over: Partial<SkillToolContext> = {}): SkillToolContext => ({
  skills: new Map([[skill.name, skill]]),
  access: new Map(),
  activated: new Set(),
  limits: { ...DEFAULT_LIMITS, maxSkillFileBytes: 1, maxFrontmatterBytes: 1, maxResourceBytes: 1, maxDepth: 1 },
  display: { appDir: '/app', home: '/home' },
  onActivated: () => {},
  ...over,
});

describe('tool declarations', () => {
  it('follow one naming scheme: <family>_<verb> on the wire, <family>.<verb> for people', () => {
    for (const d of TOOL_DECLARATIONS) {
      expect(d.name).toMatch(/^(skills|sandbox)_[a-zA-Z]+$/);
      expect(d.displayName).toBe(d.name.replace('_', '.'));
      expect(toolDisplayName(d.name)).toBe(d.displayName);
    }
    expect(toolDisplayName('other_tool')).toBe('other_tool');
  });

  it('include the search tool the catalog names when it leaves skills out', () => {
    const { note } = JSON.parse(catalogBlock([], 3)) as { note: string };
    expect(note).toContain(`Call ${TOOL_SEARCH} `);
    expect(TOOL_DECLARATIONS.map((d) => d.name)).toContain(TOOL_SEARCH);
  });

  it('read their long description from the sibling text file', () => {
    const search = TOOL_DECLARATIONS.find((d) => d.name === TOOL_SEARCH)!;
    expect(search.description).toMatch(/^Search all installed skills/);
    for (const d of TOOL_DECLARATIONS) expect(d.description.length).toBeGreaterThan(40);
  });

  it('only activation, a script (for declared network hosts) and the shell wait for consent', () => {
    expect(TOOL_DECLARATIONS.filter((d) => needsConsent(d.name)).map((d) => d.name)).toEqual([
      TOOL_ACTIVATE,
      TOOL_RUN_SCRIPT,
      TOOL_SHELL,
    ]);
    expect(needsConsent('unknown')).toBe(false);
  });

  it('build the tool set, none without skills', () => {
    expect(Object.keys(createTurnTools(ctx())!).sort()).toEqual(TOOL_DECLARATIONS.map((d) => d.name).sort());
    expect(createTurnTools(ctx({ skills: new Map() }))).toBeUndefined();
  });

  it('offer only the shell when there are no skills but the person has one', async () => {
    const shellOnly = ctx({ skills: new Map(), shell: 'allow', execution: resolveExecutionConfig({}, '/tmp', '/tmp') });
    expect(createTurnTools(shellOnly)).toBeDefined();
    const offered = await offeredTools(shellOnly);
    expect(offered).toEqual([TOOL_SHELL]); // bubblewrap is installed wherever the tests run (`npm test` installs it first)
    expect(await offeredTools({ ...shellOnly, shell: 'off' })).toEqual([]);
  });

  it('keep each schema across turns, converted to JSON Schema once, and follow the activation enum', async () => {
    const first = createTurnTools(ctx({ activationEnum: ['demo'] }))!;
    const second = createTurnTools(ctx({ activationEnum: ['demo'] }))!;
    // The same schema object: the SDK reads its JSON Schema once, not at every step of every turn.
    expect(second[TOOL_ACTIVATE].inputSchema).toBe(first[TOOL_ACTIVATE].inputSchema);
    expect(second[TOOL_SEARCH].outputSchema).toBe(first[TOOL_SEARCH].outputSchema);
    type NameField = { properties: { name: { enum?: string[]; type?: string } } };
    const json = (tools: typeof first) => asSchema(tools[TOOL_ACTIVATE].inputSchema).jsonSchema as NameField;
    expect(json(first)).toBe(json(second));
    expect(json(first).properties.name.enum).toEqual(['demo']);
    // Another skill set: another enum, and a free string when skills are left out of the catalog.
    const other = createTurnTools(ctx({ activationEnum: ['demo', 'other'] }))!;
    expect(json(other).properties.name.enum).toEqual(['demo', 'other']);
    const free = createTurnTools(ctx({ activationEnum: null }))!;
    expect(json(free).properties.name).toMatchObject({ type: 'string' });
    expect(await asSchema(free[TOOL_ACTIVATE].inputSchema).validate!({ name: 'anything' })).toMatchObject({
      success: true,
    });
    expect(await asSchema(first[TOOL_ACTIVATE].inputSchema).validate!({ name: 'other' })).toMatchObject({
      success: false,
    });
  });

  it('offer search only when skills were left out, and scripts only while an active skill has some', async () => {
    expect(await offeredTools(ctx({ search: null }))).toEqual([TOOL_ACTIVATE, TOOL_READ_RESOURCE]);
    const withSearch = await offeredTools(
      ctx({ search: { matcher: () => ({ rank: () => [], match: () => [], nearest: () => [] }) } }),
    );
    expect(withSearch).toEqual([TOOL_SEARCH, TOOL_ACTIVATE, TOOL_READ_RESOURCE]);
  });
});
