import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../chat/attached-documents';
import { noSandboxLine, workspaceFilesLine } from '../prompt/appended-lines';
import { catalogBlock } from '../prompt/catalog-block';
import { buildInstructions } from '../prompt/instructions';
import { skillContentBlock } from '../prompt/skill-block';
import { readPrompt, toOutcome } from './prompt-reader';

const system = (content: string): LanguageModelV4Prompt[number] => ({ role: 'system', content });
const user = (text: string): LanguageModelV4Prompt[number] => ({ role: 'user', content: [{ type: 'text', text }] });

describe('readPrompt reads back what server/prompt/ writes', () => {
  it('the catalog, the activated names, the explicit skill, a skill block and the workspace files', () => {
    const entries = ['a', 'b', 'c'].map((name) => JSON.stringify({ name, description: `Skill ${name}` }));
    const instructions =
      buildInstructions({
        catalog: catalogBlock(entries, 2),
        activatedNames: ['a'],
        explicitSkill: 'b',
        skillContent: skillContentBlock({
          name: 'a',
          instructions: 'Do A. See <x> & scripts/run.py',
          truncated: false,
          location: '.skills/a',
          files: ['scripts/run.py', 'notes & more.md'],
          capped: false,
        }),
        summary: 'Earlier, the user asked for A.',
      }) + workspaceFilesLine([{ name: 'report.pdf', size: 10, mediaType: 'application/pdf' }]);
    const view = readPrompt({ prompt: [system(instructions), user('go')] });
    expect(view.catalog.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(view.activeNames).toEqual(['a']);
    expect(view.explicitSkill).toBe('b');
    expect(view.workspaceFiles).toEqual(['report.pdf']);
    expect(view.activations.get('a')).toEqual({
      name: 'a',
      description: '',
      instructions: 'Do A. See <x> & scripts/run.py',
      resources: ['scripts/run.py', 'notes & more.md'],
    });
  });

  it('why no code can run, and nothing when the line is not there', () => {
    const reason = 'bubblewrap is not installed, so no code runs: as root, apt-get install -y bubblewrap';
    const instructions = buildInstructions({ catalog: catalogBlock([], 0), activatedNames: [] });
    expect(readPrompt({ prompt: [system(instructions + noSandboxLine(reason)), user('go')] }).noSandbox).toBe(reason);
    expect(readPrompt({ prompt: [system(instructions), user('go')] }).noSandbox).toBeNull();
  });

  it('the documents attached to the latest message, read or not', () => {
    const read = renderDocument(
      'report "v2".pdf',
      { state: 'read', text: 'Q3 up', parts: { count: 2, unit: 'pages' }, complete: true },
      100,
    );
    const one = renderDocument(
      'budget.xlsx',
      { state: 'read', text: 'total 3', parts: { count: 1, unit: 'sheets' }, complete: true },
      100,
    );
    const failed = renderDocument('broken.docx', { state: 'failed', reason: 'not a zip file' }, 100);
    const message: LanguageModelV4Prompt[number] = {
      role: 'user',
      content: [
        { type: 'text', text: read },
        { type: 'text', text: one },
        { type: 'text', text: failed },
        { type: 'text', text: 'summarise them' },
      ],
    };
    const view = readPrompt({ prompt: [system('policy'), message] });
    expect(view.userText).toBe('summarise them');
    expect(view.documents).toEqual([
      { name: 'report "v2".pdf', text: 'Q3 up', parts: '2 pages' },
      { name: 'budget.xlsx', text: 'total 3', parts: '1 sheet' },
      { name: 'broken.docx', text: '', error: 'not a zip file' },
    ]);
  });
});

describe('readPrompt: the catalog', () => {
  it('finds the available_skills object among prose with braces and other JSON', () => {
    const catalog = JSON.stringify({
      available_skills: [
        { name: 'a', description: 'Has a } brace and "quotes" {inside}' },
        { name: 'b', description: 'Second' },
      ],
    });
    const view = readPrompt({
      prompt: [system(`Policy {not json} here.\n{"other":1}\n${catalog}\ntrailing {`), user('hi')],
    });
    expect(view.catalog).toEqual([
      { name: 'a', description: 'Has a } brace and "quotes" {inside}' },
      { name: 'b', description: 'Second' },
    ]);
  });

  it('finds it nested inside a larger object', () => {
    const view = readPrompt({
      prompt: [system(JSON.stringify({ x: { available_skills: [{ name: 'n', description: 'd' }] } })), user('')],
    });
    expect(view.catalog).toEqual([{ name: 'n', description: 'd' }]);
  });

  it('falls back to the skills-ref XML, then to the activation tool enum', () => {
    const xml =
      '<available_skills><skill><name>pdf</name><description>PDFs &amp; forms</description>' +
      '<location>/x</location></skill></available_skills>';
    expect(readPrompt({ prompt: [system(xml)] }).catalog).toEqual([{ name: 'pdf', description: 'PDFs & forms' }]);
    const tools = [
      {
        type: 'function' as const,
        name: 'skills_activate',
        inputSchema: { type: 'object' as const, properties: { name: { type: 'string' as const, enum: ['x', 'y'] } } },
      },
    ];
    const view = readPrompt({ prompt: [system('no catalog')], tools });
    expect(view.catalog.map((s) => s.name)).toEqual(['x', 'y']);
    expect(view.activatableNames).toEqual(['x', 'y']);
  });
});

describe('readPrompt: the same system prompt on every step', () => {
  const catalogPrompt = JSON.stringify({ available_skills: [{ name: 'listed', description: 'On the list' }] });

  it('is read once: each step gets the same catalog list (the planner keeps its matcher on it)', () => {
    const first = readPrompt({ prompt: [system(catalogPrompt), user('one')] });
    const second = readPrompt({ prompt: [system(catalogPrompt), user('two')] });
    expect(second.catalog).toBe(first.catalog);
    expect(readPrompt({ prompt: [system(`${catalogPrompt} `), user('one')] }).catalog).not.toBe(first.catalog);
  });

  it('adds search results to a copy, leaving the list it keeps as the prompt says', () => {
    const searched = readPrompt({
      prompt: [
        system(catalogPrompt),
        user('find one'),
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 's', toolName: 'skills_search', input: { query: 'x' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 's',
              toolName: 'skills_search',
              output: { type: 'json', value: { query: 'x', results: [{ name: 'found', description: 'By search' }] } },
            },
          ],
        },
      ],
    });
    expect(searched.catalog.map((s) => s.name)).toEqual(['listed', 'found']);
    expect(readPrompt({ prompt: [system(catalogPrompt), user('again')] }).catalog.map((s) => s.name)).toEqual([
      'listed',
    ]);
  });
});

describe('readPrompt: activated names and the explicit skill', () => {
  const catalog = '{"available_skills":[{"name":"a","description":""},{"name":"b","description":""}]}';

  it.each([
    ['activated_skill_names: ["a","b"]', ['a', 'b']],
    ['activated_skill_names: []', []],
    ['activated_skill_names: a, b', ['a', 'b']],
    ['{"activated_skill_names":["b"]}', ['b']],
  ])('%s', (line, expected) => {
    expect(readPrompt({ prompt: [system(`${catalog}\n${line}`)] }).activeNames).toEqual(expected);
  });

  it('does not read the policy sentence that mentions the key as a list', () => {
    const policy = 'skills in activated_skill_names are already loaded; do not activate them again.';
    expect(readPrompt({ prompt: [system(`${policy}\n${catalog}`)] }).activeNames).toEqual([]);
  });

  it('reads explicit_skill only when it names a known skill', () => {
    expect(readPrompt({ prompt: [system(`${catalog}\nexplicit_skill: b`)] }).explicitSkill).toBe('b');
    expect(readPrompt({ prompt: [system(`${catalog}\nexplicit_skill: zzz`)] }).explicitSkill).toBeNull();
  });
});

describe('readPrompt: turns', () => {
  it('splits tool exchanges into this turn and history, and records activations from both', () => {
    const prompt: LanguageModelV4Prompt = [
      system('{"available_skills":[{"name":"a","description":""}]}'),
      user('first'),
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: '1', toolName: 'skills_activate', input: { name: 'a' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: '1',
            toolName: 'skills_activate',
            output: { type: 'json', value: { name: 'a', instructions: 'Read `x/y.md`.', resources: ['x/y.md'] } },
          },
        ],
      },
      user('second'),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: '2', toolName: 'skills_readResource', input: { name: 'a', path: 'x/y.md' } },
        ],
      },
    ];
    const view = readPrompt({ prompt });
    expect(view.userText).toBe('second');
    expect(view.turnNumber).toBe(2);
    expect(view.activeNames).toEqual(['a']);
    expect(view.turn).toEqual([
      {
        toolCallId: '2',
        toolName: 'skills_readResource',
        input: { name: 'a', path: 'x/y.md' },
        outcome: { status: 'pending' },
      },
    ]);
    expect(view.activations.get('a')).toEqual({
      name: 'a',
      description: '',
      instructions: 'Read `x/y.md`.',
      resources: ['x/y.md'],
    });
  });
});

describe('toOutcome', () => {
  it('reads every way a tool can fail as an error with a clean message', () => {
    expect(toOutcome({ type: 'error-text', value: 'Error: nope' })).toEqual({ status: 'error', message: 'nope' });
    expect(toOutcome({ type: 'error-text', value: 'SkillToolError: nope' })).toEqual({
      status: 'error',
      message: 'nope',
    });
    expect(toOutcome({ type: 'error-json', value: { message: 'bad' } })).toEqual({ status: 'error', message: 'bad' });
    expect(toOutcome({ type: 'json', value: { error: 'refused' } })).toEqual({ status: 'error', message: 'refused' });
    expect(toOutcome({ type: 'text', value: '{"error":"refused"}' })).toEqual({ status: 'error', message: 'refused' });
    expect(toOutcome({ type: 'execution-denied', reason: 'no' })).toEqual({ status: 'denied', reason: 'no' });
  });

  it('passes data through', () => {
    expect(toOutcome({ type: 'json', value: { content: 'x' } })).toEqual({ status: 'ok', value: { content: 'x' } });
    expect(toOutcome({ type: 'text', value: 'plain' })).toEqual({ status: 'ok', value: 'plain' });
  });
});
