/**
 * A server's `elicitation/create` as the person sees and answers it: the requested schema read into form fields
 * (the flat primitive schemas of the MCP spec: string with format and length, number, integer, boolean, enum,
 * titled enum, multi-select), their defaults applied, and the person's values checked against the fields before
 * anything goes back to the server. URL mode is a link and what it is for.
 *
 * The message, titles, descriptions and option labels are the server's words: untrusted text. Hidden characters
 * are removed and lengths capped here, once, so the card renders them as plain text and nothing else cleans them.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { stripHiddenText } from '../skills/load/hidden-text';

type Option = { value: string; label: string };
type Common = { name: string; title: string; description?: string; required: boolean };

export type ElicitField = Common &
  (
    | {
        kind: 'string';
        format?: 'email' | 'uri' | 'date' | 'date-time';
        minLength?: number;
        maxLength?: number;
        default?: string;
      }
    | { kind: 'number' | 'integer'; minimum?: number; maximum?: number; default?: number }
    | { kind: 'boolean'; default?: boolean }
    | { kind: 'enum'; options: Option[]; default?: string }
    | { kind: 'multi'; options: Option[]; minItems?: number; maxItems?: number; default?: string[] }
  );

/** What the card shows: a form, or a link to open. */
export type ElicitationView =
  | { mode: 'form'; message: string; fields: ElicitField[] }
  | { mode: 'url'; message: string; url: string; host: string };

export type ElicitParams = ElicitRequest['params'];
export type ElicitAnswer = ElicitResult;

const MAX_MESSAGE = 2000;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 500;
const MAX_FIELDS = 50;

/** Server text as the card may show it: no hidden or bidi characters, capped. */
export function serverText(value: unknown, max: number): string {
  return typeof value === 'string' ? stripHiddenText(value).slice(0, max) : '';
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

function options(values: unknown[], titles?: unknown[]): Option[] {
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((value, i) => ({ value, label: serverText(titles?.[i] ?? value, MAX_TITLE) || value }));
}

function titled(list: unknown): Option[] | null {
  if (!Array.isArray(list)) return null;
  const out = list.flatMap((o) =>
    o && typeof o === 'object' && typeof (o as { const?: unknown }).const === 'string'
      ? [{ value: (o as { const: string }).const, label: serverText((o as { title?: unknown }).title, MAX_TITLE) }]
      : [],
  );
  return out.map((o) => ({ ...o, label: o.label || o.value }));
}

/** One property of the requested schema as a field; null for a shape the spec does not allow (left out). */
function fieldOf(name: string, schema: Record<string, unknown>, required: boolean): ElicitField | null {
  const description = serverText(schema.description, MAX_DESCRIPTION);
  const common: Common = {
    name,
    title: serverText(schema.title, MAX_TITLE) || serverText(name, MAX_TITLE),
    ...(description ? { description } : {}),
    required,
  };
  const enumNames = Array.isArray(schema.enumNames) ? schema.enumNames : undefined;
  if (schema.type === 'array') {
    const items = (schema.items ?? {}) as Record<string, unknown>;
    const opts = Array.isArray(items.enum) ? options(items.enum) : titled(items.anyOf ?? items.oneOf);
    if (!opts) return null;
    const def = Array.isArray(schema.default) ? schema.default.filter((v) => opts.some((o) => o.value === v)) : null;
    const min = count(schema.minItems);
    const max = count(schema.maxItems);
    return {
      ...common,
      kind: 'multi',
      options: opts,
      ...(min !== undefined ? { minItems: min } : {}),
      ...(max !== undefined ? { maxItems: max } : {}),
      ...(def ? { default: def as string[] } : {}),
    };
  }
  if (schema.type === 'string' && (Array.isArray(schema.enum) || Array.isArray(schema.oneOf))) {
    const opts = Array.isArray(schema.enum) ? options(schema.enum, enumNames) : titled(schema.oneOf)!;
    const def = typeof schema.default === 'string' && opts.some((o) => o.value === schema.default);
    return { ...common, kind: 'enum', options: opts, ...(def ? { default: schema.default as string } : {}) };
  }
  if (schema.type === 'string') {
    const min = count(schema.minLength);
    const max = count(schema.maxLength);
    return {
      ...common,
      kind: 'string',
      ...(typeof schema.format === 'string' && FORMATS.has(schema.format)
        ? { format: schema.format as 'email' | 'uri' | 'date' | 'date-time' }
        : {}),
      ...(min !== undefined ? { minLength: min } : {}),
      ...(max !== undefined ? { maxLength: max } : {}),
      ...(typeof schema.default === 'string' ? { default: schema.default } : {}),
    };
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const min = count(schema.minimum);
    const max = count(schema.maximum);
    const def = count(schema.default);
    return {
      ...common,
      kind: schema.type,
      ...(min !== undefined ? { minimum: min } : {}),
      ...(max !== undefined ? { maximum: max } : {}),
      ...(def !== undefined ? { default: def } : {}),
    };
  }
  if (schema.type === 'boolean') {
    return { ...common, kind: 'boolean', ...(typeof schema.default === 'boolean' ? { default: schema.default } : {}) };
  }
  return null;
}

/** The fields of a requested schema, in the server's order. */
export function formFields(requestedSchema: unknown): ElicitField[] {
  const schema = (requestedSchema ?? {}) as { properties?: unknown; required?: unknown };
  const properties =
    schema.properties && typeof schema.properties === 'object' ? (schema.properties as Record<string, unknown>) : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties)
    .slice(0, MAX_FIELDS)
    .flatMap(([name, property]) => {
      if (!property || typeof property !== 'object') return [];
      const field = fieldOf(name, property as Record<string, unknown>, required.has(name));
      return field ? [field] : [];
    });
}

/** Only http(s) links are offered: a `javascript:` or `file:` URL is not a page to open. */
function safeUrl(value: unknown): URL | null {
  try {
    const url = new URL(String(value));
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** What the card shows for a request; null for a URL request whose link is not http(s). */
export function elicitationView(params: ElicitParams): ElicitationView | null {
  const message = serverText(params.message, MAX_MESSAGE);
  if (params.mode === 'url') {
    const url = safeUrl((params as { url?: unknown }).url);
    return url ? { mode: 'url', message, url: url.href, host: url.host } : null;
  }
  return { mode: 'form', message, fields: formFields((params as { requestedSchema?: unknown }).requestedSchema) };
}

/** The form's starting values: each field's default, where it has one. */
export function defaultValues(fields: readonly ElicitField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) if (field.default !== undefined) values[field.name] = field.default;
  return values;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function stringProblem(field: Extract<ElicitField, { kind: 'string' }>, value: string): string | null {
  if (field.minLength !== undefined && value.length < field.minLength) {
    return `at least ${field.minLength} characters`;
  }
  if (field.maxLength !== undefined && value.length > field.maxLength) return `at most ${field.maxLength} characters`;
  if (field.format === 'email' && !EMAIL.test(value)) return 'an email address';
  if (field.format === 'uri' && !URL.canParse(value)) return 'a URL';
  if (field.format === 'date' && !(DATE.test(value) && !Number.isNaN(Date.parse(value)))) return 'a date (YYYY-MM-DD)';
  if (field.format === 'date-time' && Number.isNaN(Date.parse(value))) return 'a date and time';
  return null;
}

/** A value of one field, or why not (a phrase after "must be"). */
function checkField(field: ElicitField, value: unknown): { value: unknown } | { problem: string } {
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return { problem: 'text' };
      const problem = stringProblem(field, value);
      return problem ? { problem } : { value };
    }
    case 'number':
    case 'integer': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return { problem: 'a number' };
      if (field.kind === 'integer' && !Number.isInteger(n)) return { problem: 'a whole number' };
      if (field.minimum !== undefined && n < field.minimum) return { problem: `at least ${field.minimum}` };
      if (field.maximum !== undefined && n > field.maximum) return { problem: `at most ${field.maximum}` };
      return { value: n };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { problem: 'yes or no' };
    case 'enum':
      return field.options.some((o) => o.value === value) ? { value } : { problem: 'one of the options' };
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => field.options.some((o) => o.value === v))) {
        return { problem: 'a choice of the options' };
      }
      if (field.minItems !== undefined && value.length < field.minItems) {
        return { problem: `at least ${field.minItems} choices` };
      }
      if (field.maxItems !== undefined && value.length > field.maxItems) {
        return { problem: `at most ${field.maxItems} choices` };
      }
      return { value };
    }
  }
}

const empty = (value: unknown) => value === undefined || value === null || value === '';

/**
 * The person's values checked against the fields, with the defaults of the fields left empty: the content sent
 * with "accept", or a sentence per field that is wrong. Names the form does not have are dropped.
 */
export function checkValues(
  fields: readonly ElicitField[],
  values: Readonly<Record<string, unknown>>,
): { ok: true; content: Record<string, unknown> } | { ok: false; problems: Record<string, string> } {
  const content: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const field of fields) {
    const given = values[field.name];
    const value = empty(given) ? field.default : given;
    if (empty(value)) {
      if (field.required) problems[field.name] = `"${field.title}" is required`;
      continue;
    }
    const checked = checkField(field, value);
    if ('problem' in checked) problems[field.name] = `"${field.title}" must be ${checked.problem}`;
    else content[field.name] = checked.value;
  }
  return Object.keys(problems).length > 0 ? { ok: false, problems } : { ok: true, content };
}

/**
 * Answers a request with no person to ask: a form is accepted with its defaults (declined when a required field has
 * none), a URL is declined. For headless callers (the conformance driver); a chat turn asks the person.
 */
export function acceptWithDefaults(params: ElicitParams): ElicitAnswer {
  const view = elicitationView(params);
  if (view?.mode !== 'form') return { action: 'decline' };
  const checked = checkValues(view.fields, defaultValues(view.fields));
  return checked.ok ? { action: 'accept', content: checked.content as ElicitAnswer['content'] } : { action: 'decline' };
}
