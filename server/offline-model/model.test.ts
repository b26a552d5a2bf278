/**
 * The offline model driven the way the chat drives it: `streamText` with real `tool()` definitions, multi-step,
 * canned tool outputs shaped like the chat layer's. Each test reads like a conversation.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { generateText, isStepCount, type ModelMessage, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noSandboxLine } from '../prompt/appended-lines';
import { buildInstructions } from '../prompt/instructions';
import { renderCatalog } from '../skills/catalog/catalog';
import { chunkText, createOfflineModel } from './model';

interface CannedSkill {
  name: string;
  description: string;
  instructions: string;
  files: Record<string, string>;
}

const SKILLS: CannedSkill[] = [
  {
    name: 'skills-system-validation',
    description:
      'Conformance check that validates and tests the skillchat skills system end to end (skills.activate, ' +
      'skills.readResource, bundled scripts and assets). Use when asked to validate, test, verify or debug the ' +
      'skills system, or to run the skills conformance check.',
    instructions: [
      '# Skills system validation',
      '',
      '1. Read `references/REFERENCE.md` with `skills.readResource`. It contains a marker string.',
      '2. Read `assets/fixture.json` with `skills.readResource`. Note `fixture_id` and `marker`.',
      '3. Read `scripts/echo.sh` with `skills.readResource`.',
      '',
      'See also [the template](assets/unlisted.md) and `/etc/hosts` (an example, not a reference).',
    ].join('\n'),
    files: {
      'references/REFERENCE.md': '# Conformance reference\n\nMarker: SKILLCHAT_CONFORMANCE_REFERENCE_v1\n',
      'assets/fixture.json':
        '{\n  "fixture_id": "skills-system-validation",\n  "marker": "SKILLCHAT_CONFORMANCE_FIXTURE_v1"\n}\n',
      'scripts/echo.sh': '#!/usr/bin/env bash\necho "SKILLCHAT_SKILLS_SCRIPT_OK"\n',
    },
  },
  {
    name: 'csv-to-json',
    description:
      'Converts CSV or TSV tables into JSON (an array of records keyed by the header row). Use when the user ' +
      'pastes comma- or tab-separated data, a spreadsheet export, and wants JSON records or a JSON array.',
    instructions: '# CSV to JSON\n\nThe edge cases are in `references/CSV-EDGE-CASES.md`.\n',
    files: { 'references/CSV-EDGE-CASES.md': '# CSV edge cases\n\nQuoted fields may contain commas.\n' },
  },
  {
    name: 'commit-message',
    description:
      'Writes git commit messages in the Conventional Commits format from a diff or a summary of what changed. ' +
      'Use when the user asks for a commit message.',
    instructions: '# Commit messages\n\nUse `type(scope): subject`.\n',
    files: {},
  },
];
const NAMES = SKILLS.map((s) => s.name) as [string, ...string[]];
const bySkill = new Map(SKILLS.map((s) => [s.name, s]));

/** The same text the chat layer builds, so the tests also pin the instructions format both sides rely on. */
function instructions(activated: string[] = [], explicitSkill?: string): string {
  return buildInstructions({ catalog: renderCatalog(SKILLS), activatedNames: activated, explicitSkill });
}

/** The chat layer refuses these (its confined reader); the offline model must report the refusal, not hide it. */
const REFUSED: Record<string, string> = {
  '../SKILL.md': 'Path "../SKILL.md" leaves the skill folder; give a path relative to the skill folder',
  '/etc/passwd': 'Absolute paths are not allowed: "/etc/passwd"',
};

interface ToolOptions {
  /** Return `{ error }` as data instead of throwing (the other failure style a tool may use). */
  errorsAsData?: boolean;
  activated?: string[];
  /** Every activation fails with this message. */
  activateError?: string;
}

function skillTools(options: ToolOptions = {}) {
  const activated = new Set(options.activated ?? []);
  const fail = (message: string) => {
    if (options.errorsAsData) return { error: message };
    throw new Error(message);
  };
  return {
    skills_activate: tool({
      description: 'Load a skill',
      inputSchema: z.object({ name: z.enum(NAMES) }),
      execute: async ({ name }) => {
        if (options.activateError) throw new Error(options.activateError);
        const skill = bySkill.get(name)!;
        const base = { name, description: skill.description, location: `.skills/${name}`, how: 'model' as const };
        if (activated.has(name)) {
          return { ...base, instructions: '', resources: [], truncated: false, alreadyActive: true };
        }
        activated.add(name);
        return { ...base, instructions: skill.instructions, resources: Object.keys(skill.files), truncated: false };
      },
    }),
    skills_readResource: tool({
      description: 'Read a file in a skill',
      inputSchema: z.object({ name: z.string(), path: z.string() }),
      execute: async ({ name, path }) => {
        const refused = REFUSED[path];
        if (refused) return fail(refused);
        const content = bySkill.get(name)?.files[path];
        if (content === undefined) return fail(`File not found: ${path}`);
        const bytes = Buffer.byteLength(content);
        return { name, path, content, bytes, truncated: false, binary: false, mediaType: 'text/plain' };
      },
    }),
  };
}

/**
 * The chat layer's `sandbox_exec`, canned: it echoes the command's first word and makes one file; a command with
 * `fail` in it also prints a traceback and exits 1.
 */
const shellTool = tool({
  description: 'Run a command line in the sandbox',
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => ({
    command,
    state: 'done' as const,
    exitCode: command.includes('fail') ? 1 : 0,
    stdout: `ran ${command.split(/\s+/)[0]}\n`,
    stderr: command.includes('fail')
      ? 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n'
      : '',
    durationMs: 1200,
    truncated: false,
    timedOut: false,
    files: [{ name: 'out.pdf', size: 10, mediaType: 'application/pdf', status: 'created' as const }],
  }),
});

/** The chat layer's `skills_runScript`, canned: the script writes the file named by its last argument. */
const runScriptTool = tool({
  description: 'Run a script of an active skill',
  inputSchema: z.object({ name: z.string(), path: z.string(), args: z.array(z.string()).optional() }),
  execute: async ({ name, path, args = [] }) => ({
    name,
    path,
    args,
    exitCode: 0,
    stdout: 'done\n',
    stderr: '',
    durationMs: 10,
    truncated: false,
    timedOut: false,
    files:
      args.length > 0
        ? [{ name: args.at(-1) ?? '', size: 10, mediaType: 'text/plain', status: 'created' as const }]
        : [],
  }),
});

interface RunOptions {
  messages: ModelMessage[];
  /** Offer the canned shell tool. */
  shell?: boolean;
  /** Offer the canned script runner. */
  scripts?: boolean;
  /** Appended to the instructions, as the chat layer appends the workspace's files. */
  extraInstructions?: string;
  activated?: string[];
  explicitSkill?: string;
  tools?: ToolOptions;
  toolChoice?: 'auto' | 'none' | 'required';
}

async function run(options: RunOptions) {
  const result = streamText({
    model: createOfflineModel(),
    instructions: instructions(options.activated, options.explicitSkill) + (options.extraInstructions ?? ''),
    messages: options.messages,
    tools: {
      ...skillTools({ activated: options.activated, ...options.tools }),
      ...(options.shell ? { sandbox_exec: shellTool } : {}),
      ...(options.scripts ? { skills_runScript: runScriptTool } : {}),
    },
    toolChoice: options.toolChoice,
    stopWhen: isStepCount(6),
    // As the chat layer does: force activation on the first step only, then drop the explicit line.
    prepareStep: ({ stepNumber }) => {
      if (!options.explicitSkill) return undefined;
      if (stepNumber === 0) return { toolChoice: { type: 'tool', toolName: 'skills_activate' } };
      return { instructions: instructions([...(options.activated ?? []), options.explicitSkill]) };
    },
  });
  const deltas: string[] = [];
  for await (const part of result.stream) if (part.type === 'text-delta') deltas.push(part.text);
  const steps = await result.steps;
  const calls = steps.flatMap((s) => s.toolCalls.map((c) => ({ tool: c.toolName, input: c.input })));
  return { text: await result.text, steps, calls, deltas, finishReason: await result.finishReason };
}

const user = (text: string): ModelMessage => ({ role: 'user', content: text });

describe('offline model: `/name $ COMMAND` runs the command in the sandbox', () => {
  it('activates the skill, then runs the whole rest of the message, lines included, and reports it', async () => {
    const command = "cat > deck.js <<'JS'\nconsole.log(1)\nJS\nnode deck.js";
    const { calls, text } = await run({
      messages: [user(`$ ${command}`)],
      explicitSkill: 'csv-to-json',
      shell: true,
    });
    expect(calls).toEqual([
      { tool: 'skills_activate', input: { name: 'csv-to-json' } },
      { tool: 'sandbox_exec', input: { command } },
    ]);
    expect(text).toContain('in the sandbox (exit code 0, 1.2 s)');
    expect(text).toContain('ran cat');
    expect(text).toContain('Files produced: `out.pdf`.');
  });

  it('says the shell is not available when the tool is not offered, and runs nothing', async () => {
    const { calls, text } = await run({ messages: [user('$ ls -la')], shell: false });
    expect(calls).toEqual([]);
    expect(text).toContain('I did not run `ls -la`: the shell is not available in this chat');
  });

  it('without a sandbox, names what is missing and the fix, read from the code_cannot_run line', async () => {
    const reason = 'bubblewrap is not installed, so no code runs: as root, apt-get install -y bubblewrap';
    const { calls, text } = await run({
      messages: [user('$ ls -la')],
      shell: false,
      extraInstructions: noSandboxLine(reason),
    });
    expect(calls).toEqual([]);
    expect(text).toContain(
      'I did not run `ls -la`: no code can run here. Bubblewrap is not installed, so no code runs: as root, apt-get install -y bubblewrap.',
    );
  });

  it('writes the output and the errors as separate paragraphs, so the fence closes before "Errors:"', async () => {
    const { text } = await run({ messages: [user('$ python3 fail.py')], shell: true });
    expect(text).toContain(
      '```\n\nErrors:\n\n```\nTraceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n```',
    );
    expect(text).not.toMatch(/```[ \t]+\S/);
  });

  it('does not read from the skill a file its script was handed or made in this turn', async () => {
    const { calls } = await run({
      messages: [user('/csv-to-json run scripts/convert.py people.csv people.json')],
      explicitSkill: 'csv-to-json',
      scripts: true,
    });
    expect(calls.map((c) => c.tool)).toContain('skills_runScript');
    expect(calls.filter((c) => c.tool === 'skills_readResource')).toEqual([]);
  });

  it("does not read the person's own file names from the skill", async () => {
    const files =
      '\n\nworkspace_files (the chat\'s files, in /workspace for scripts): [{"name":"people.csv","size":20,"mediaType":"text/csv"}]';
    const { calls } = await run({
      messages: [user('Convert people.csv to JSON with the csv to json skill')],
      extraInstructions: files,
    });
    expect(calls).toEqual([{ tool: 'skills_activate', input: { name: 'csv-to-json' } }]);
  });
});

describe('offline model: attached documents', () => {
  it('quotes what an attached document says instead of listing unmatched skills', async () => {
    const message: ModelMessage = {
      role: 'user',
      content: [
        {
          type: 'text',
          text: '<attached_document name="report.pdf" pages="2">\nQuarterly revenue rose 12%.\nCosts fell.\n</attached_document>',
        },
        {
          type: 'text',
          text: '<attached_document name="broken.pdf" unreadable="true">The file could not be read: the PDF is damaged</attached_document>',
        },
        { type: 'text', text: 'what does this say?' },
      ],
    };
    const { calls, text } = await run({ messages: [message] });
    expect(calls).toEqual([]);
    expect(text).toContain('I read `report.pdf` (2 pages, 39 characters). It starts:');
    expect(text).toContain('Quarterly revenue rose 12%.');
    expect(text).toContain('I could not read `broken.pdf`: the PDF is damaged');
    expect(text).not.toContain('No skill clearly matched');
    expect(text).not.toContain('None of the');
  });
});

describe('offline model through streamText', () => {
  it('activates the skill a message matches, then answers from the activation', async () => {
    const { calls, text, steps, finishReason } = await run({
      messages: [user('Convert this CSV to JSON please:\nname,age\nAda,36')],
    });
    expect(calls).toEqual([{ tool: 'skills_activate', input: { name: 'csv-to-json' } }]);
    expect(steps).toHaveLength(2);
    expect(finishReason).toBe('stop');
    expect(text).toContain('I activated **csv-to-json**: Converts CSV or TSV tables into JSON');
    // Nothing was read yet: the answer shows what the instructions say and which file they point to.
    expect(text).toContain('# CSV to JSON');
    expect(text).toContain('`references/CSV-EDGE-CASES.md`');
    expect(text).toContain("I'm the offline model");
  });

  it('answers a message no skill matches without calling tools', async () => {
    const { calls, text, steps } = await run({ messages: [user('hello there, how are you?')] });
    expect(calls).toEqual([]);
    expect(steps).toHaveLength(1);
    expect(text).toContain('None of the 3 available skills matched your message');
    expect(text).toContain('`skills-system-validation`');
    expect(text).toContain('`/commit-message`');
    expect(text).toContain("I'm the offline model");
  });

  it('activates the explicitly invoked skill when the tool is forced, whatever the text says', async () => {
    const { calls, text } = await run({ messages: [user('go ahead')], explicitSkill: 'commit-message' });
    expect(calls).toEqual([{ tool: 'skills_activate', input: { name: 'commit-message' } }]);
    expect(text).toContain('I activated **commit-message**');
  });

  it('with a forced activation and no explicit_skill line, picks the skill from the message or a /name prefix', async () => {
    const model = createOfflineModel();
    const forced = async (text: string) => {
      const result = streamText({
        model,
        instructions: instructions(),
        messages: [user(text)],
        tools: skillTools(),
        stopWhen: isStepCount(4),
        prepareStep: ({ stepNumber }) =>
          stepNumber === 0 ? { toolChoice: { type: 'tool', toolName: 'skills_activate' } } : undefined,
      });
      return (await result.steps)[0]?.toolCalls.map((c) => c.input);
    };
    expect(await forced('turn this csv into json')).toEqual([{ name: 'csv-to-json' }]);
    expect(await forced('/commit-message hello')).toEqual([{ name: 'commit-message' }]);
  });

  it('reads every path the user names, in order, after activating, and reports refusals with the reason', async () => {
    const { calls, text, steps } = await run({
      messages: [
        user('Use the csv to json skill and read references/CSV-EDGE-CASES.md, ../SKILL.md and `/etc/passwd`.'),
      ],
    });
    expect(calls).toEqual([
      { tool: 'skills_activate', input: { name: 'csv-to-json' } },
      { tool: 'skills_readResource', input: { name: 'csv-to-json', path: 'references/CSV-EDGE-CASES.md' } },
      { tool: 'skills_readResource', input: { name: 'csv-to-json', path: '../SKILL.md' } },
      { tool: 'skills_readResource', input: { name: 'csv-to-json', path: '/etc/passwd' } },
    ]);
    // activate, then all reads in parallel in one step, then the answer: three steps fit any step budget.
    expect(steps).toHaveLength(3);
    expect(text).toContain('I read `references/CSV-EDGE-CASES.md` (3 lines). It starts:');
    expect(text).toContain('Quoted fields may contain commas.');
    expect(text).toContain(`The read of \`../SKILL.md\` was refused: ${REFUSED['../SKILL.md']}`);
    expect(text).toContain(`The read of \`/etc/passwd\` was refused: ${REFUSED['/etc/passwd']}`);
  });

  it('reports refusals the same way when a tool returns { error } as data', async () => {
    const { text } = await run({
      messages: [user('csv to json: show me ../SKILL.md')],
      tools: { errorsAsData: true },
    });
    expect(text).toContain(`The read of \`../SKILL.md\` was refused: ${REFUSED['../SKILL.md']}`);
  });

  it('on "validate", reads the files the skill instructions point to and quotes their markers', async () => {
    const { calls, text } = await run({ messages: [user('Please validate the skills system')] });
    expect(calls).toEqual([
      { tool: 'skills_activate', input: { name: 'skills-system-validation' } },
      // Only listed files: the unlisted link and the absolute example path are not read.
      { tool: 'skills_readResource', input: { name: 'skills-system-validation', path: 'references/REFERENCE.md' } },
      { tool: 'skills_readResource', input: { name: 'skills-system-validation', path: 'assets/fixture.json' } },
      { tool: 'skills_readResource', input: { name: 'skills-system-validation', path: 'scripts/echo.sh' } },
    ]);
    expect(text).toContain('I activated **skills-system-validation**');
    expect(text).toContain(
      'I read `references/REFERENCE.md` (3 lines); it contains `SKILLCHAT_CONFORMANCE_REFERENCE_v1`.',
    );
    expect(text).toContain('`SKILLCHAT_CONFORMANCE_FIXTURE_v1`');
    expect(text).toContain('`SKILLCHAT_SKILLS_SCRIPT_OK`');
  });

  it('never reads the same path twice in a turn, however it is spelled', async () => {
    const { calls } = await run({
      messages: [user('validate the skills system; read ./references/REFERENCE.md and references/REFERENCE.md')],
    });
    const paths = calls.filter((c) => c.tool === 'skills_readResource').map((c) => (c.input as { path: string }).path);
    expect(paths).toEqual(['references/REFERENCE.md', 'assets/fixture.json', 'scripts/echo.sh']);
  });

  it('does not re-activate a skill listed in activated_skill_names', async () => {
    const { calls, text } = await run({
      messages: [user('convert this CSV to JSON: a,b\n1,2')],
      activated: ['csv-to-json'],
    });
    expect(calls).toEqual([]);
    expect(text).toContain('**csv-to-json** is already active in this chat');
  });

  it('does not re-activate a skill activated earlier in the conversation, and reads from it directly', async () => {
    const first = [user('convert csv to json')];
    const earlier = await streamText({
      model: createOfflineModel(),
      instructions: instructions(),
      messages: first,
      tools: skillTools(),
      stopWhen: isStepCount(6),
    }).responseMessages;
    expect(earlier.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    const history: ModelMessage[] = [...first, ...earlier];
    // activated_skill_names deliberately empty: the history alone must be enough.
    const { calls, text } = await run({
      messages: [...history, user('now show me references/CSV-EDGE-CASES.md for csv to json')],
    });
    expect(calls).toEqual([
      { tool: 'skills_readResource', input: { name: 'csv-to-json', path: 'references/CSV-EDGE-CASES.md' } },
    ]);
    expect(text).toContain('I read `references/CSV-EDGE-CASES.md`');
  });

  it('says so when activation fails, and reads nothing', async () => {
    const { calls, text } = await run({
      messages: [user('write a commit message for notes/todo.md')],
      tools: { activateError: 'Skill "commit-message" is disabled' },
    });
    expect(calls).toEqual([{ tool: 'skills_activate', input: { name: 'commit-message' } }]);
    expect(text).toContain('I could not activate **commit-message**: Skill "commit-message" is disabled');
  });

  it('answers in plain text when tools are disabled for the call', async () => {
    const { calls, text } = await run({ messages: [user('convert csv to json')], toolChoice: 'none' });
    expect(calls).toEqual([]);
    expect(text).toContain('**csv-to-json** looks relevant');
  });

  it('streams the answer in several deltas that add up to the text', async () => {
    const { deltas, text } = await run({ messages: [user('hello')] });
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(text);
  });

  it('is deterministic: the same conversation gives the same calls, ids and text', async () => {
    const messages = [user('Please validate the skills system and read ../SKILL.md')];
    const a = await run({ messages });
    const b = await run({ messages });
    expect(b.text).toBe(a.text);
    expect(b.calls).toEqual(a.calls);
    const ids = (r: typeof a) => r.steps.flatMap((s) => s.toolCalls.map((c) => c.toolCallId));
    expect(ids(b)).toEqual(ids(a));
    expect(new Set(ids(a)).size).toBe(ids(a).length);
  });
});

describe('offline model with no skills', () => {
  it('explains that no skills are installed', async () => {
    const result = streamText({
      model: createOfflineModel(),
      instructions: buildInstructions({ catalog: null, activatedNames: [] }),
      messages: [user('convert csv to json')],
    });
    expect(await result.text).toContain('no skills are installed');
  });
});

describe('offline model through generateText (doGenerate)', () => {
  it('runs the same plan without streaming', async () => {
    const result = await generateText({
      model: createOfflineModel(),
      instructions: instructions(),
      messages: [user('validate the skills system')],
      tools: skillTools(),
      stopWhen: isStepCount(6),
    });
    expect(result.steps.map((s) => s.toolCalls.length)).toEqual([1, 3, 0]);
    expect(result.text).toContain('`SKILLCHAT_CONFORMANCE_REFERENCE_v1`');
  });
});

describe('offline model stream protocol', () => {
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] }];

  async function readAll(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
    const parts: LanguageModelV4StreamPart[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return parts;
      parts.push(value);
    }
  }

  it('emits stream-start, metadata, text parts and a finish with V4 usage', async () => {
    const { stream } = await createOfflineModel().doStream({ prompt });
    const parts = await readAll(stream);
    expect(parts.map((p) => p.type).filter((t, i, all) => t !== all[i - 1])).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    const finish = parts.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: expect.any(Number) }, outputTokens: { total: expect.any(Number) } },
    });
  });

  it('stops with the abort reason when aborted mid-stream', async () => {
    const controller = new AbortController();
    const model = createOfflineModel({ chunkDelayMs: 20 });
    const { stream } = await model.doStream({ prompt, abortSignal: controller.signal });
    const reader = stream.getReader();
    let read = 0;
    const reading = (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return 'done';
        if (++read === 4) controller.abort(new Error('stopped by test'));
      }
    })();
    await expect(reading).rejects.toThrow('stopped by test');
    expect(read).toBeLessThan(10);
  });

  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(createOfflineModel().doStream({ prompt, abortSignal: controller.signal })).rejects.toThrow('too late');
  });

  it('splits text into word chunks that concatenate back exactly', () => {
    const text = 'Line one\n\n  two   words ';
    expect(chunkText(text).join('')).toBe(text);
    expect(chunkText(text).length).toBe(4);
    expect(chunkText('')).toEqual([]);
  });
});
