/**
 * What a consent is about: a typed subject, never a string convention. Each kind is registered once here, with how
 * it is stored (its kind and a key within the kind, two columns), how /admin names it, and whether answers about it
 * are logged. A new kind of consent (a network host, a secret) is one entry in `SubjectKinds` and one in
 * `SUBJECT_KINDS`; the compiler then asks for nothing else, since the service, the store and the approvals path only
 * handle `ConsentSubject` values.
 *
 * Kinds keep their keys apart: the served skill `mcp:github` (a skill of the server labelled `mcp`) and the MCP
 * server `github` were once the same stored string; now they are `skill` `mcp:github` and `mcp-server` `github`.
 */
import type { StoredSubject } from '../db/permissions';

/** Each kind's fields. */
export interface SubjectKinds {
  /** A skill by name (a served skill's `<label>:<name>` included): its activation, its personal switch. */
  skill: { name: string };
  /** An MCP server, by label: a person's switch for it. */
  'mcp-server': { label: string };
  /** One tool of an MCP server: a call of it. */
  'mcp-tool': { label: string; tool: string };
  /** One exact command line in the chat's sandbox. */
  'shell-command': { command: string };
  /** A person's standing grant: commands starting with these words (server/tools/shell-prefix.ts). */
  'shell-prefix': { prefix: string };
  /**
   * Hosts a skill declares (`metadata.network`) and the operator has not granted, for a skill under `ask`: its runs
   * may reach them once the person approves. `hosts` is the sorted `host:port` list, space-separated.
   */
  network: { skill: string; hosts: string };
}

export type SubjectKind = keyof SubjectKinds;
export type SubjectOf<K extends SubjectKind> = { kind: K } & SubjectKinds[K];
export type ConsentSubject = { [K in SubjectKind]: SubjectOf<K> }[SubjectKind];

/** How one kind is stored and shown. */
interface SubjectKindSpec<K extends SubjectKind> {
  /** The subject's key within its kind (the `subject` column). */
  key(subject: SubjectOf<K>): string;
  /** The subject back from its key; null for a key this kind cannot have written. */
  parse(key: string): SubjectOf<K> | null;
  /** How people and /admin name it. */
  label(subject: SubjectOf<K>): string;
  /** The word in "Always allowed for this version of the …". */
  noun: string;
  /**
   * Whether answers about it go to the decision log on /admin. A shell command is asked for each run and approved
   * as shown, once: the run itself is what the operator reads about, not a line per answer.
   */
  logged: boolean;
  /** Whether a grant of it is the person's own (their standing shell grants), not everyone's. */
  personal: boolean;
}

/** The one registration point of a kind of consent. */
export const SUBJECT_KINDS: { readonly [K in SubjectKind]: SubjectKindSpec<K> } = {
  skill: {
    key: (s) => s.name,
    parse: (name) => (name ? { kind: 'skill', name } : null),
    label: (s) => s.name,
    noun: 'skill',
    logged: true,
    personal: false,
  },
  'mcp-server': {
    key: (s) => s.label,
    parse: (label) => (label ? { kind: 'mcp-server', label } : null),
    label: (s) => `mcp:${s.label}`,
    noun: 'server',
    logged: true,
    personal: false,
  },
  'mcp-tool': {
    // A label never holds `/` (server/mcp/config.ts), so the first `/` ends it.
    key: (s) => `${s.label}/${s.tool}`,
    parse: (key) => {
      const slash = key.indexOf('/');
      return slash > 0 ? { kind: 'mcp-tool', label: key.slice(0, slash), tool: key.slice(slash + 1) } : null;
    },
    label: (s) => `mcp:${s.label}/${s.tool}`,
    noun: 'tool',
    logged: true,
    personal: false,
  },
  'shell-command': {
    key: (s) => s.command,
    parse: (command) => (command ? { kind: 'shell-command', command } : null),
    label: (s) => s.command,
    noun: 'command',
    logged: false,
    personal: false,
  },
  'shell-prefix': {
    key: (s) => s.prefix,
    parse: (prefix) => (prefix ? { kind: 'shell-prefix', prefix } : null),
    label: (s) => `${s.prefix} …`,
    noun: 'command pattern',
    logged: false,
    personal: true,
  },
  network: {
    // A skill name never holds a space (the spec's names are lower-case letters, digits and hyphens; a served
    // skill's `<label>:<name>` neither), so the first space ends it.
    key: (s) => `${s.skill} ${s.hosts}`,
    parse: (key) => {
      const space = key.indexOf(' ');
      return space > 0 ? { kind: 'network', skill: key.slice(0, space), hosts: key.slice(space + 1) } : null;
    },
    label: (s) => `${s.skill} → ${s.hosts}`,
    noun: 'skill',
    logged: true,
    personal: false,
  },
};

function specOf<K extends SubjectKind>(kind: K): SubjectKindSpec<K> {
  return SUBJECT_KINDS[kind];
}

export type { StoredSubject };

export function storedSubject(subject: ConsentSubject): StoredSubject {
  return { kind: subject.kind, key: specOf(subject.kind).key(subject as SubjectOf<typeof subject.kind>) };
}

function isKind(kind: string): kind is SubjectKind {
  return Object.hasOwn(SUBJECT_KINDS, kind);
}

/** The subject of a stored row; null for a kind this version does not know (a row written by a newer one). */
export function subjectFromStored(stored: StoredSubject): ConsentSubject | null {
  return isKind(stored.kind) ? (specOf(stored.kind).parse(stored.key) as ConsentSubject | null) : null;
}

/** How /admin names a subject: a skill's name, `mcp:<label>/<tool>` for an MCP tool. */
export function subjectLabel(subject: ConsentSubject): string {
  return specOf(subject.kind).label(subject as SubjectOf<typeof subject.kind>);
}

/** A stored row's name on /admin, also for a kind this version does not know. */
export function storedLabel(stored: StoredSubject): string {
  const subject = subjectFromStored(stored);
  return subject ? subjectLabel(subject) : `${stored.kind}:${stored.key}`;
}

export function subjectNoun(subject: ConsentSubject): string {
  return specOf(subject.kind).noun;
}

export function isLogged(subject: ConsentSubject): boolean {
  return specOf(subject.kind).logged;
}

/** Whether grants of this kind are a person's own. */
export function isPersonal(kind: SubjectKind): boolean {
  return specOf(kind).personal;
}
