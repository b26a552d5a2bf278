/**
 * The offline model's words. It cannot reason, so it reports: what it activated and read (quoting short excerpts
 * and marker-like strings so a person can check the files really were read), what failed and why, and how to get
 * further. Pure and deterministic: the same prompt gives the same text.
 */

import {
  MCP_TOOL_PREFIX,
  TOOL_ACTIVATE,
  TOOL_READ_RESOURCE,
  TOOL_RUN_SCRIPT,
  TOOL_SEARCH,
  TOOL_SHELL,
} from '../tools/names';
import { describeMcp, mcpCallIn, mcpNotCalled } from './mcp-calls';
import type { CatalogEntry, PromptView, ToolExchange } from './prompt-reader';
import { pointedFiles } from './resource-paths';

export interface AnswerContext {
  view: PromptView;
  /** The skill the user's message points at (explicit, `/name`, or the matcher's best match), if any. */
  target: string | null;
  /** Weaker candidates for a message nothing matched, best first. */
  suggestions: CatalogEntry[];
  /** False when tool calls are not allowed this step (`toolChoice: none`, or the tool is not offered). */
  canActivate: boolean;
}

// The variables named are the ones server/model/registry.ts reads (model-hint.test.ts checks they stay so).
const OFFLINE_NOTE =
  "I'm the offline model built into skillchat: I can activate skills and read their files, but not carry out their " +
  'steps or write a full answer. To use a real model, add one on /admin (Models), or start skillchat with ' +
  '`OPENAI_API_KEY` or `ANTHROPIC_API_KEY`, or `OPENAI_BASE_URL` for an OpenAI-compatible endpoint (vLLM, LM ' +
  'Studio, llama.cpp), or run Ollama on this computer; then pick it in the chat header.';

const EXCERPT_LINES = 5;
const EXCERPT_LINE_CHARS = 160;
const LIST_LIMIT = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1).trimEnd()}…`;
}

/** A long description's first sentence when it fits, else the clipped text: the answer should not repeat a catalog. */
function summary(description: string, max = 160): string {
  const text = description.replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const end = text.lastIndexOf('. ', max);
  return end > 40 ? text.slice(0, end + 1) : clip(text, max);
}

function code(text: string): string {
  // A backtick inside would end the span early; a longer fence keeps it literal.
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

function codeBlock(lines: string[]): string {
  const body = lines.join('\n');
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${body}\n${fence}`;
}

function listNames(names: string[]): string {
  const shown = names.slice(0, LIST_LIMIT).map(code);
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

function excerpt(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(0, EXCERPT_LINES)
    .map((line) => (line.length > EXCERPT_LINE_CHARS ? `${line.slice(0, EXCERPT_LINE_CHARS - 1)}…` : line));
}

/**
 * Strings such as `SKILLCHAT_CONFORMANCE_REFERENCE_v1`: conformance checks and people look for exactly these, so
 * they are named even when they sit below the excerpt.
 */
export function findMarkers(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Za-z0-9]+){2,}\b/g)) {
    if (m[0].length >= 8) found.add(m[0]);
    if (found.size >= 3) break;
  }
  return [...found];
}

function describeActivation(exchange: ToolExchange, freshlyActivated: Set<string>): string | null {
  const name = str(exchange.input.name) ?? 'the skill';
  const outcome = exchange.outcome;
  switch (outcome.status) {
    case 'pending':
      return null;
    case 'denied':
      return `Activating **${name}** was not approved${outcome.reason ? ` (${outcome.reason})` : ''}, so I did not use it.`;
    case 'error':
      return `I could not activate **${name}**: ${clip(outcome.message, 300)}`;
    case 'ok': {
      const value = isRecord(outcome.value) ? outcome.value : {};
      const skill = str(value.name) ?? name;
      if (value.alreadyActive === true) {
        return `**${skill}** was already active in this chat, so its instructions were not loaded again.`;
      }
      freshlyActivated.add(skill);
      const description = str(value.description);
      const parts = [`I activated **${skill}**${description ? `: ${summary(description)}` : '.'}`];
      const notice = str(value.notice);
      if (notice) parts.push(`(${clip(notice, 200)})`);
      return parts.join(' ');
    }
  }
}

function describeRead(exchange: ToolExchange): string | null {
  const path = str(exchange.input.path) ?? '(no path)';
  const outcome = exchange.outcome;
  switch (outcome.status) {
    case 'pending':
      return null;
    case 'denied':
      return `Reading ${code(path)} was not approved${outcome.reason ? ` (${outcome.reason})` : ''}.`;
    case 'error':
      return `The read of ${code(path)} was refused: ${clip(outcome.message, 300)}`;
    case 'ok': {
      const value = isRecord(outcome.value) ? outcome.value : {};
      const shownPath = str(value.path) ?? path;
      const content = str(value.content) ?? (typeof outcome.value === 'string' ? outcome.value : '');
      const notice = str(value.notice);
      const tail = notice ? ` (${clip(notice, 200)})` : value.truncated === true ? ' (truncated)' : '';
      if (value.binary === true) {
        const what = content ? `: ${clip(content, 200)}` : '';
        return `I read ${code(shownPath)}: it is a binary file, so its content is not shown${what}.${tail}`;
      }
      if (content.trim() === '') return `I read ${code(shownPath)}: it is empty.${tail}`;
      const lineCount = content.split(/\r?\n/).filter((l, i, all) => l !== '' || i < all.length - 1).length;
      const markers = findMarkers(content);
      const contains = markers.length > 0 ? `; it contains ${markers.map(code).join(', ')}` : '';
      const head = `I read ${code(shownPath)} (${lineCount} ${lineCount === 1 ? 'line' : 'lines'})${contains}.${tail} It starts:`;
      return `${head}\n\n${codeBlock(excerpt(content))}`;
    }
  }
}

function describeRun(exchange: ToolExchange): string | null {
  const path = str(exchange.input.path) ?? '(no path)';
  const outcome = exchange.outcome;
  switch (outcome.status) {
    case 'pending':
      return null;
    case 'denied':
      return `Running ${code(path)} was not approved.`;
    case 'error':
      return `Running ${code(path)} failed: ${clip(outcome.message, 300)}`;
    case 'ok': {
      const value = isRecord(outcome.value) ? outcome.value : {};
      const exit = typeof value.exitCode === 'number' ? value.exitCode : null;
      const stdout = str(value.stdout) ?? '';
      const stderr = str(value.stderr) ?? '';
      const how = value.timedOut === true ? 'it was stopped by the time limit' : `exit code ${exit ?? 'unknown'}`;
      const parts = [`I ran ${code(path)} in the sandbox (${how}).`];
      if (stdout.trim()) parts.push(`Output:\n\n${codeBlock(excerpt(stdout))}`);
      else parts.push('It printed nothing.');
      if (stderr.trim()) parts.push(`Errors:\n\n${codeBlock(excerpt(stderr))}`);
      const hint = str(value.hint);
      if (hint) parts.push(hint);
      // Name the workspace files the run produced, so the person knows what to download.
      const files = producedFiles(value);
      if (files) parts.push(files);
      // Paragraphs: text after a fence on its closing line ("``` Errors:") would reopen it as a code block's info.
      return parts.join('\n\n');
    }
  }
}

/**
 * `$ COMMAND`: the person hands the offline model a command line to run in the sandbox, lines included. With
 * `/name $ COMMAND` the skill is activated first (the forced first step), so COMMAND can use `/skills/name/...`.
 */
export function shellCommandIn(text: string): string | null {
  const m = /^\s*\$[ \t]+([\s\S]*\S[\s\S]*)$/.exec(text);
  return m?.[1]?.trim() ?? null;
}

/** The workspace files a run created or changed, named so the person knows what to download. */
function producedFiles(value: Record<string, unknown>): string | null {
  const files = (Array.isArray(value.files) ? value.files : []).flatMap((f) => {
    const name = isRecord(f) ? str(f.name) : undefined;
    return name ? [code(name)] : [];
  });
  return files.length > 0 ? `Files produced: ${files.join(', ')}.` : null;
}

function describeShell(exchange: ToolExchange): string | null {
  const command = str(exchange.input.command) ?? '';
  const shown = command.includes('\n') ? `\n\n${codeBlock(excerpt(command))}\n\n` : ` ${code(clip(command, 200))} `;
  const outcome = exchange.outcome;
  switch (outcome.status) {
    case 'pending':
      return null;
    case 'denied':
      return `Running${shown}was not approved${outcome.reason ? ` (${outcome.reason})` : ''}.`;
    case 'error':
      return `Running${shown}failed: ${clip(outcome.message, 300)}`;
    case 'ok': {
      const value = isRecord(outcome.value) ? outcome.value : {};
      const exit = typeof value.exitCode === 'number' ? value.exitCode : null;
      const seconds = typeof value.durationMs === 'number' ? `, ${(value.durationMs / 1000).toFixed(1)} s` : '';
      const parts = [`I ran${shown}in the sandbox (exit code ${exit ?? 'unknown'}${seconds}).`];
      const stdout = str(value.stdout) ?? '';
      const stderr = str(value.stderr) ?? '';
      if (stdout.trim()) parts.push(`Output:\n\n${codeBlock(excerpt(stdout))}`);
      if (stderr.trim() && exit !== 0) parts.push(`Errors:\n\n${codeBlock(excerpt(stderr))}`);
      const error = str(value.error);
      if (error) parts.push(`It was stopped: ${clip(error, 300)}.`);
      const hint = str(value.hint);
      if (hint) parts.push(hint);
      const files = producedFiles(value);
      if (files) parts.push(files);
      // Paragraphs: text after a fence on its closing line ("``` Errors:") would reopen it as a code block's info.
      return parts.join('\n\n');
    }
  }
}

function describeSearch(exchange: ToolExchange): string | null {
  const outcome = exchange.outcome;
  if (outcome.status === 'error') return `Searching the skills failed: ${clip(outcome.message, 300)}`;
  if (outcome.status !== 'ok') return null;
  const value = isRecord(outcome.value) ? outcome.value : {};
  const results = Array.isArray(value.results) ? value.results.filter(isRecord) : [];
  const names = results.map((r) => str(r.name)).filter((n): n is string => n !== undefined);
  if (names.length === 0) return 'I searched the skills that are not listed and found nothing relevant.';
  return `I searched the skills that are not listed and found ${listNames(names)}.`;
}

function describeOtherTool(exchange: ToolExchange): string | null {
  const outcome = exchange.outcome;
  const name = code(exchange.toolName);
  if (outcome.status === 'error') return `${name} failed: ${clip(outcome.message, 300)}`;
  if (outcome.status === 'denied') return `${name} was not approved.`;
  if (outcome.status === 'ok') return `I called ${name}.`;
  return null;
}

/** What a freshly activated skill says to do, when nothing was read yet: its opening lines and the files it names. */
function describeInstructions(view: PromptView, name: string): string[] {
  const record = view.activations.get(name);
  if (!record) return [];
  const out: string[] = [];
  const lines = excerpt(record.instructions);
  if (lines.length > 0) out.push(`Its instructions start:\n\n${codeBlock(lines)}`);
  const pointed = pointedFiles(record);
  if (pointed.length > 0) {
    out.push(`They point to ${listNames(pointed)}: name a file (or ask me to check the skill) and I will read it.`);
  } else if (record.resources && record.resources.length > 0) {
    out.push(`The skill folder holds ${listNames(record.resources)}.`);
  }
  return out;
}

function describeTurn(view: PromptView): string[] {
  const paragraphs: string[] = [];
  const fresh = new Set<string>();
  let readSomething = false;
  for (const exchange of view.turn) {
    let line: string | null;
    if (exchange.toolName === TOOL_ACTIVATE) line = describeActivation(exchange, fresh);
    else if (exchange.toolName === TOOL_READ_RESOURCE) {
      line = describeRead(exchange);
      readSomething = true;
    } else if (exchange.toolName === TOOL_SEARCH) {
      line = describeSearch(exchange);
    } else if (exchange.toolName === TOOL_RUN_SCRIPT) {
      line = describeRun(exchange);
      readSomething = true;
    } else if (exchange.toolName === TOOL_SHELL) {
      line = describeShell(exchange);
      readSomething = true;
    } else if (exchange.toolName.startsWith(MCP_TOOL_PREFIX)) {
      line = describeMcp(exchange);
      readSomething = true;
    } else line = describeOtherTool(exchange);
    if (line) paragraphs.push(line);
  }
  if (!readSomething) for (const name of fresh) paragraphs.push(...describeInstructions(view, name));
  return paragraphs;
}

function describeNoTools(ctx: AnswerContext): string[] {
  const { view, target } = ctx;
  if (view.catalog.length === 0) {
    return [
      "I'm the offline model built into skillchat, and no skills are installed, so there is nothing for me to use.",
      'Add a folder with a `SKILL.md` under `.skills/` (or `~/.agents/skills/`) and rescan from the admin page.',
    ];
  }
  const entry = target ? view.catalog.find((s) => s.name === target) : undefined;
  if (target && view.activeNames.includes(target)) {
    return [
      `**${target}** is already active in this chat, so I did not activate it again; I follow its instructions.`,
      ...describeInstructions(view, target),
    ];
  }
  if (target && !ctx.canActivate) {
    const about = entry?.description ? ` (${summary(entry.description)})` : '';
    return [`**${target}** looks relevant${about}, but I cannot activate skills in this reply.`];
  }
  // The example names the skill closest to the message, not whichever skill happens to be listed first.
  const example = ctx.suggestions[0]?.name ?? target ?? view.catalog[0]?.name ?? 'skill-name';
  const paragraphs: string[] = [];
  if (ctx.suggestions.length > 0) {
    const list = ctx.suggestions.map((s) => `- **${s.name}**: ${summary(s.description)}`).join('\n');
    paragraphs.push(`No skill clearly matched your message. These come closest:\n\n${list}`);
  } else {
    const count = view.catalog.length;
    paragraphs.push(
      `None of the ${count} available ${count === 1 ? 'skill' : 'skills'} matched your message. ` +
        `Available: ${listNames(view.catalog.map((s) => s.name))}.`,
    );
  }
  paragraphs.push(`To use a skill explicitly, type ${code(`/${example}`)} followed by your request.`);
  return paragraphs;
}

/** What the attached documents say, as far as an excerpt goes: the offline model cannot summarise, it quotes. */
function describeDocuments(view: PromptView): string[] {
  return view.documents.map((d) => {
    if (d.error) return `I could not read ${code(d.name)}: ${clip(d.error, 300)}`;
    const size = `${d.parts ? `${d.parts}, ` : ''}${d.text.length.toLocaleString('en-US')} characters`;
    const lines = excerpt(d.text);
    if (lines.length === 0) return `I read ${code(d.name)} (${size}): it has no text.`;
    return `I read ${code(d.name)} (${size}). It starts:\n\n${codeBlock(lines)}`;
  });
}

/** A reason as a sentence of its own: capitalised, ending with a full stop. */
function sentence(reason: string): string {
  const text = reason.charAt(0).toUpperCase() + reason.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export function composeAnswer(ctx: AnswerContext): string {
  const command = shellCommandIn(ctx.view.userText);
  const ran = ctx.view.turn.some((e) => e.toolName === TOOL_SHELL);
  const documents = describeDocuments(ctx.view);
  const mcp = mcpCallIn(ctx.view.userText);
  // With documents and nothing to do with skills, the documents are the answer: no list of unmatched skills.
  const skillsPart =
    ctx.view.turn.length > 0
      ? describeTurn(ctx.view)
      : mcp !== null
        ? [mcpNotCalled(ctx.view, mcp)]
        : command !== null || (documents.length > 0 && ctx.target === null)
          ? []
          : describeNoTools(ctx);
  const paragraphs = [...documents, ...skillsPart];
  if (command !== null && !ran) {
    paragraphs.push(
      ctx.view.noSandbox !== null
        ? `I did not run ${code(clip(command, 200))}: no code can run here. ${sentence(ctx.view.noSandbox)}`
        : `I did not run ${code(clip(command, 200))}: the shell is not available in this chat (the operator's \`shell.mode\` is \`off\` for you, or no sandbox can run here; /admin says which).`,
    );
  }
  if (paragraphs.length === 0) paragraphs.push('I have nothing to add.');
  if (ctx.view.catalog.length > 0) paragraphs.push(OFFLINE_NOTE);
  return paragraphs.join('\n\n');
}
