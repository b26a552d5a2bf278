/**
 * What the offline model knows, read from exactly what any model receives: the prompt (system instructions,
 * messages, tool calls and results) and the tool definitions. No side channel to the chat layer, so the offline
 * model exercises the same contract a hosted model does.
 */
import type {
  JSONValue,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';

import { KeptMap } from '../kept-map';
import {
  ACTIVATED_KEY,
  CATALOG_KEY,
  DOCUMENT_TAG,
  EXPLICIT_SKILL_KEY,
  NO_SANDBOX_KEY,
  NO_SANDBOX_NOTE,
  SKILL_CONTENT_TAG,
  SKILL_DIRECTORY_LABEL,
  UNREADABLE_LABEL,
  WORKSPACE_FILES_KEY,
} from '../prompt/keys';
import { TOOL_ACTIVATE, TOOL_SEARCH } from '../tools/names';

export interface CatalogEntry {
  name: string;
  description: string;
}

/** A tool result reduced to what an answer needs; `pending` when the call has no result in the prompt. */
export type ToolOutcome =
  | { status: 'ok'; value: unknown }
  | { status: 'error'; message: string }
  | { status: 'denied'; reason?: string }
  | { status: 'pending' };

export interface ToolExchange {
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  outcome: ToolOutcome;
}

export interface ActivationRecord {
  name: string;
  description: string;
  instructions: string;
  resources: string[] | undefined;
}

export interface AttachedDocument {
  name: string;
  text: string;
  /** `3 pages`, `2 slides`, when the reader counted them. */
  parts?: string;
  error?: string;
}

export interface PromptView {
  system: string;
  /** From the `available_skills` JSON in the instructions; falls back to the activation tool's name enum. */
  catalog: readonly CatalogEntry[];
  /** Names the activation tool accepts (its schema enum), or null when it has no enum or is not offered. */
  activatableNames: string[] | null;
  offeredTools: Set<string>;
  /** `explicit_skill: <name>` from the instructions, when it names a known skill. */
  explicitSkill: string | null;
  /**
   * Active per the instructions' `activated_skill_names` (which the chat layer may refresh between steps, so it can
   * include a skill activated this turn) plus successful activations earlier in the conversation.
   */
  activeNames: string[];
  /** The latest user message's text. */
  userText: string;
  /** Documents attached to the latest user message, with their text (or why it could not be read). */
  documents: AttachedDocument[];
  /** Names of the chat's files (`workspace_files` in the instructions): the person's, not the skill's. */
  workspaceFiles: string[];
  /** Why no code can run here (the `code_cannot_run` line), or null when nothing says so. */
  noSandbox: string | null;
  /** How many user messages the prompt holds (1 on the first turn). */
  turnNumber: number;
  /** Tool calls since the latest user message, in order, with their results. */
  turn: ToolExchange[];
  /** Activation outputs seen anywhere in the prompt, latest wins: a skill's instructions and file list. */
  activations: Map<string, ActivationRecord>;
}

/** The reason on the `code_cannot_run` line the chat layer appends (server/prompt/appended-lines.ts), or null. */
function noSandboxIn(system: string): string | null {
  const start = system.indexOf(`\n${NO_SANDBOX_KEY}: `);
  if (start === -1) return null;
  const end = system.indexOf('\n', start + 1);
  const line = system.slice(start + NO_SANDBOX_KEY.length + 3, end === -1 ? undefined : end);
  const note = ` (${NO_SANDBOX_NOTE})`;
  return line.endsWith(note) ? line.slice(0, -note.length) : null;
}

const WORKSPACE_FILES_LINE = new RegExp(`^${WORKSPACE_FILES_KEY} \\([^)]*\\): (\\[.*\\])$`, 'm');

/** The file names of the `workspace_files (...): [...]` line the chat layer appends to the instructions. */
function workspaceFilesIn(system: string): string[] {
  const line = WORKSPACE_FILES_LINE.exec(system);
  if (!line?.[1]) return [];
  try {
    const files: unknown = JSON.parse(line[1]);
    return Array.isArray(files)
      ? files.flatMap((f) => (isRecord(f) && typeof f.name === 'string' ? [f.name] : []))
      : [];
  } catch {
    return [];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The end of the balanced `{...}` starting at `start`, honouring JSON strings (a `}` inside a description must not
 * close the object). Returns -1 when it never balances.
 */
function balancedObjectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The JSON object that holds `"available_skills"` as its own key, wherever it sits in the instructions. */
function findCatalogObject(system: string): Record<string, unknown> | null {
  const key = JSON.stringify(CATALOG_KEY);
  for (let at = system.indexOf(key); at !== -1; at = system.indexOf(key, at + key.length)) {
    // Nearest `{` first: the innermost enclosing object is the catalog; outer ones may wrap it in other data.
    let tries = 0;
    for (let open = system.lastIndexOf('{', at); open !== -1 && tries < 32; open = system.lastIndexOf('{', open - 1)) {
      tries++;
      const end = balancedObjectEnd(system, open);
      if (end < at) continue;
      try {
        const parsed: unknown = JSON.parse(system.slice(open, end + 1));
        if (isRecord(parsed) && Array.isArray(parsed[CATALOG_KEY])) return parsed;
      } catch {
        // Not JSON from this brace (prose with a `{`): try the next one out.
      }
      if (open === 0) break;
    }
  }
  return null;
}

function catalogFromJson(obj: Record<string, unknown>): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const item of obj[CATALOG_KEY] as unknown[]) {
    if (isRecord(item) && typeof item.name === 'string' && item.name !== '') {
      entries.push({ name: item.name, description: typeof item.description === 'string' ? item.description : '' });
    }
  }
  return entries;
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** skills-ref's `to-prompt` XML, in case instructions are ever rendered that way. */
function catalogFromXml(system: string): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const m of system.matchAll(/<skill>\s*<name>([\s\S]*?)<\/name>\s*<description>([\s\S]*?)<\/description>/g)) {
    const name = decodeXml((m[1] ?? '').trim());
    if (name) entries.push({ name, description: decodeXml((m[2] ?? '').trim()) });
  }
  return entries;
}

function parseNameList(raw: string): string[] {
  const trimmed = raw.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.filter((x): x is string => typeof x === 'string' && x !== '');
    } catch {
      // Fall through to the lenient split (e.g. `[a, b]` without quotes).
    }
  }
  return trimmed
    .replace(/^\[|\]$/g, '')
    .split(/[,\s]+/)
    .map((s) => s.replace(/^["']|["']$/g, ''))
    .filter((s) => s !== '');
}

const ACTIVATED_LINE = new RegExp(`"?${ACTIVATED_KEY}"?\\s*[:=]\\s*(\\[[^\\]\\n]*\\]|[^\\n]*)`, 'g');

/** `activated_skill_names: ["a","b"]` as a line, or the same key inside a JSON object. */
function findActivatedNames(system: string, catalogObject: Record<string, unknown> | null): string[] {
  const names: string[] = [];
  const listed = catalogObject?.[ACTIVATED_KEY];
  if (Array.isArray(listed)) {
    for (const n of listed) if (typeof n === 'string') names.push(n);
  }
  for (const m of system.matchAll(ACTIVATED_LINE)) {
    names.push(...parseNameList(m[1] ?? ''));
  }
  return [...new Set(names)];
}

const EXPLICIT_LINE = new RegExp(`"?${EXPLICIT_SKILL_KEY}"?\\s*[:=]\\s*"?((?:[a-z0-9-]+:)?[\\p{L}\\p{N}_-]+)`, 'gu');

function findExplicitSkill(system: string, isKnown: (name: string) => boolean): string | null {
  for (const m of system.matchAll(EXPLICIT_LINE)) {
    const name = m[1];
    if (name && isKnown(name)) return name;
  }
  return null;
}

function nameEnum(tools: LanguageModelV4CallOptions['tools'], toolName: string): string[] | null {
  const tool = tools?.find((t) => t.type === 'function' && t.name === toolName);
  if (tool?.type !== 'function') return null;
  const schema: unknown = tool.inputSchema;
  if (!isRecord(schema) || !isRecord(schema.properties)) return null;
  const nameProp = schema.properties.name;
  if (!isRecord(nameProp) || !Array.isArray(nameProp.enum)) return null;
  return nameProp.enum.filter((x): x is string => typeof x === 'string');
}

function maybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorMessage(value: JSONValue): string {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.message === 'string') return value.message;
  if (isRecord(value) && typeof value.error === 'string') return value.error;
  return JSON.stringify(value);
}

/** A thrown error reaches the prompt as `String(error)`: "Error: Path ..." reads worse than the message alone. */
function withoutErrorPrefix(message: string): string {
  return message.replace(/^(?:[A-Z][A-Za-z]*)?Error:\s*/, '');
}

/**
 * Tools report failure two ways: `execute` throws (the SDK sends `error-text`), or it returns `{ error }` as data.
 * Both mean the same to the reader of the answer.
 */
export function toOutcome(output: LanguageModelV4ToolResultOutput): ToolOutcome {
  let value: unknown;
  switch (output.type) {
    case 'execution-denied':
      return { status: 'denied', reason: output.reason };
    case 'error-text':
      return { status: 'error', message: withoutErrorPrefix(output.value) };
    case 'error-json':
      return { status: 'error', message: withoutErrorPrefix(errorMessage(output.value)) };
    case 'json':
      value = output.value;
      break;
    case 'text':
      value = maybeJson(output.value);
      break;
    case 'content':
      value = maybeJson(
        output.value
          .map((part) => (part.type === 'text' ? part.text : ''))
          .filter((t) => t !== '')
          .join('\n'),
      );
      break;
  }
  if (isRecord(value) && typeof value.error === 'string') return { status: 'error', message: value.error };
  return { status: 'ok', value };
}

function asInput(input: unknown): Record<string, unknown> {
  if (isRecord(input)) return input;
  // Tool-call inputs are objects once the SDK has parsed them; a string here means a raw JSON argument.
  if (typeof input === 'string') {
    const parsed = maybeJson(input);
    if (isRecord(parsed)) return parsed;
  }
  return {};
}

function collectExchanges(messages: LanguageModelV4Prompt): ToolExchange[] {
  const exchanges: ToolExchange[] = [];
  const byId = new Map<string, ToolExchange>();
  for (const message of messages) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        const exchange: ToolExchange = {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: asInput(part.input),
          outcome: { status: 'pending' },
        };
        exchanges.push(exchange);
        byId.set(part.toolCallId, exchange);
      } else if (part.type === 'tool-result') {
        const exchange = byId.get(part.toolCallId);
        if (exchange) exchange.outcome = toOutcome(part.output);
      }
    }
  }
  return exchanges;
}

/** An attached document's text part (chat/attached-documents.ts): the person's file, not their words. */
const DOCUMENT_PART = new RegExp(`^<${DOCUMENT_TAG} name="([^"]*)"([^>]*)>\\n?([\\s\\S]*?)\\n?</${DOCUMENT_TAG}>$`);

function textOf(message: LanguageModelV4Prompt[number]): string {
  if (message.role === 'system') return message.content;
  const texts: string[] = [];
  for (const part of message.content) if (part.type === 'text' && !DOCUMENT_PART.test(part.text)) texts.push(part.text);
  return texts.join('\n');
}

const unescapeAttribute = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The documents attached to a user message, as the chat layer put them before its words. */
function documentsOf(message: LanguageModelV4Prompt[number] | undefined): AttachedDocument[] {
  if (message?.role !== 'user') return [];
  return message.content.flatMap((part): AttachedDocument[] => {
    const m = part.type === 'text' ? DOCUMENT_PART.exec(part.text) : null;
    if (!m) return [];
    const name = unescapeAttribute(m[1] ?? '');
    const attributes = m[2] ?? '';
    const content = m[3] ?? '';
    if (/unreadable="true"/.test(attributes)) {
      return [
        {
          name,
          text: '',
          error: content.startsWith(UNREADABLE_LABEL) ? content.slice(UNREADABLE_LABEL.length) : content,
        },
      ];
    }
    const counted = /(pages|slides|sheets)="(\d+)"/.exec(attributes);
    // `1 page`, `3 pages`: the attribute names the plural.
    const parts = counted ? `${counted[2]} ${counted[2] === '1' ? counted[1]?.slice(0, -1) : counted[1]}` : null;
    return [{ name, text: content, ...(parts ? { parts } : {}) }];
  });
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : undefined;
}

/** The skill a successful activation result is about, or null. `alreadyActive` results count: the skill is active. */
export function activatedName(exchange: ToolExchange): string | null {
  if (exchange.toolName !== TOOL_ACTIVATE || exchange.outcome.status !== 'ok') return null;
  const value = exchange.outcome.value;
  if (isRecord(value) && typeof value.name === 'string') return value.name;
  return typeof exchange.input.name === 'string' ? exchange.input.name : null;
}

function recordActivations(exchanges: ToolExchange[], into: Map<string, ActivationRecord>): void {
  for (const exchange of exchanges) {
    const name = activatedName(exchange);
    if (name === null || exchange.outcome.status !== 'ok') continue;
    const value = exchange.outcome.value;
    // An `alreadyActive` result carries no instructions and an empty file list: it must not replace the real one.
    if (!isRecord(value) || value.alreadyActive === true) continue;
    into.set(name, {
      name,
      description: typeof value.description === 'string' ? value.description : '',
      instructions: typeof value.instructions === 'string' ? value.instructions : '',
      resources: stringArray(value.resources),
    });
  }
}

const SKILL_CONTENT_BLOCK = new RegExp(
  `<${SKILL_CONTENT_TAG} name="([^"]+)">\\n([\\s\\S]*?)</${SKILL_CONTENT_TAG}>`,
  'g',
);

/**
 * `<skill_content name="...">` blocks the chat layer re-attaches for skills activated on earlier turns: the body up
 * to the `Skill directory:` line is the instructions, `<file>` lines the resources.
 */
function recordSkillContent(system: string, into: Map<string, ActivationRecord>): void {
  for (const m of system.matchAll(SKILL_CONTENT_BLOCK)) {
    const name = decodeXml(m[1] ?? '');
    const block = m[2] ?? '';
    const end = block.indexOf(`\n\n${SKILL_DIRECTORY_LABEL}`);
    const instructions = end === -1 ? block : block.slice(0, end);
    const resources = [...block.matchAll(/^\s*<file>(.*)<\/file>$/gm)].map((f) => decodeXml(f[1] ?? ''));
    into.set(name, { name, description: '', instructions, resources });
  }
}

/** What the system prompt alone says: read once per prompt, as every step of a turn and a chat's turns send the same. */
interface SystemView {
  catalog: readonly CatalogEntry[];
  activeNames: readonly string[];
  skillContent: ReadonlyMap<string, ActivationRecord>;
}

const systemViews = new KeptMap<string, SystemView>(8);

function readSystem(system: string): SystemView {
  return systemViews.getOrSet(system, () => {
    const catalogObject = findCatalogObject(system);
    const skillContent = new Map<string, ActivationRecord>();
    recordSkillContent(system, skillContent);
    return {
      catalog: catalogObject ? catalogFromJson(catalogObject) : catalogFromXml(system),
      activeNames: findActivatedNames(system, catalogObject),
      skillContent,
    };
  });
}

export function readPrompt(options: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>): PromptView {
  const { prompt } = options;
  const system = prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const offeredTools = new Set((options.tools ?? []).map((t) => t.name));
  const activatableNames = nameEnum(options.tools, TOOL_ACTIVATE);

  const systemView = readSystem(system);
  // The system prompt's own list, unless search results join it (then a copy): the same list on each step lets the
  // planner keep its matcher.
  let catalog: readonly CatalogEntry[] = systemView.catalog;
  if (catalog.length === 0 && activatableNames) catalog = activatableNames.map((name) => ({ name, description: '' }));
  const known = new Set([...catalog.map((s) => s.name), ...(activatableNames ?? [])]);

  let lastUser = -1;
  let turnNumber = 0;
  prompt.forEach((m, i) => {
    if (m.role === 'user') {
      lastUser = i;
      turnNumber++;
    }
  });
  const before = lastUser === -1 ? prompt : prompt.slice(0, lastUser);
  const after = lastUser === -1 ? [] : prompt.slice(lastUser + 1);
  const history = collectExchanges(before);
  const turn = collectExchanges(after);

  // Skills found by `skills_search` join the catalog: the model now knows them as if they had been listed.
  const found: CatalogEntry[] = [];
  for (const exchange of [...history, ...turn]) {
    if (exchange.toolName !== TOOL_SEARCH || exchange.outcome.status !== 'ok') continue;
    const value = exchange.outcome.value;
    const results = isRecord(value) && Array.isArray(value.results) ? value.results : [];
    for (const hit of results) {
      if (!isRecord(hit) || typeof hit.name !== 'string' || known.has(hit.name)) continue;
      found.push({ name: hit.name, description: typeof hit.description === 'string' ? hit.description : '' });
      known.add(hit.name);
    }
  }
  if (found.length > 0) catalog = [...catalog, ...found];

  const activeNames = [...systemView.activeNames];
  for (const exchange of history) {
    const name = activatedName(exchange);
    if (name !== null && !activeNames.includes(name)) activeNames.push(name);
  }
  const activations = new Map(systemView.skillContent);
  recordActivations(history, activations);
  recordActivations(turn, activations);

  const userMessage = lastUser === -1 ? undefined : prompt[lastUser];
  return {
    system,
    catalog,
    activatableNames,
    offeredTools,
    explicitSkill: findExplicitSkill(system, (name) => known.has(name)),
    activeNames,
    userText: userMessage ? textOf(userMessage) : '',
    workspaceFiles: workspaceFilesIn(system),
    noSandbox: noSandboxIn(system),
    documents: documentsOf(userMessage),
    turnNumber,
    turn,
    activations,
  };
}
