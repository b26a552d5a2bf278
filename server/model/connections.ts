/**
 * Model servers added on /admin, kept in `model_connections`: an OpenAI-compatible endpoint (base URL, key), OpenAI,
 * Anthropic (a key each) or an Ollama (its URL, no key), with the models offered (some, or every one it lists). The
 * key is sealed like a secret's (secrets/crypto.ts, slot `model-connection:<id>`), opened only for the registry and
 * for Test; what /admin gets (`ConnectionView`) says whether a key is set, never what it is.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  type Database,
  deleteModelConnection,
  getModelConnection,
  insertModelConnection,
  listModelConnections,
  type ModelConnectionRecord,
  updateModelConnection,
} from '../db';
import type { Resolver } from '../egress/address';
import { AppError } from '../errors';
import { openSecret, type SecretSlot, type SecretsKey, sealSecret } from '../secrets/crypto';
import { CONNECTION_KINDS, type ConnectionKind, DEFAULT_BASE_URLS, endpointProblem, ollamaOrigin } from './endpoint';
import { displayBaseUrl } from './provider';

/** A connection as the registry and Test use it: the key opened. */
export interface ModelConnection {
  id: string;
  kind: ConnectionKind;
  name: string;
  baseUrl: string;
  /** The models offered; null: every model the endpoint lists. */
  models: string[] | null;
  apiKey?: string;
}

/** A connection as /admin shows it. */
export interface ConnectionView {
  id: string;
  kind: ConnectionKind;
  name: string;
  baseUrl: string;
  models: string[] | null;
  keySet: boolean;
  /** Why the stored key cannot be used (written under another key), if so. */
  keyProblem?: string;
  updatedAt: string;
}

const modelId = z.string().trim().min(1).max(200);

/** What the add and edit forms send. `apiKey` omitted on an edit keeps the stored key; `''` removes it. */
export const connectionInputSchema = z
  .object({
    kind: z.enum(CONNECTION_KINDS),
    name: z.string().trim().max(80).optional(),
    baseUrl: z.string().trim().max(2000).optional(),
    apiKey: z
      .string()
      .max(16 * 1024)
      .optional(),
    models: z.array(modelId).max(500).nullable().optional(),
  })
  .strict();
export type ConnectionInput = z.infer<typeof connectionInputSchema>;

const KIND_NAMES: Record<ConnectionKind, string> = {
  compatible: 'OpenAI-compatible endpoint',
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  ollama: 'Ollama',
};

export function kindName(kind: ConnectionKind): string {
  return KIND_NAMES[kind];
}

const slot = (id: string): SecretSlot => ({ name: `model-connection:${id}`, ownerId: '' });

const bad = (message: string) => new AppError('bad_request:model-connection', message);

/** The base URL a connection is saved with: checked, without a trailing slash; a 400 AppError saying why not. */
export async function normaliseBaseUrl(
  kind: ConnectionKind,
  raw: string | undefined,
  resolve?: Resolver,
): Promise<string> {
  const given = raw?.trim() || DEFAULT_BASE_URLS[kind];
  if (!given) throw bad('An OpenAI-compatible endpoint needs its base URL (like http://127.0.0.1:8000/v1)');
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw bad('The base URL is not a URL: it starts with http:// or https://');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('The base URL starts with http:// or https://');
  if (url.username || url.password) throw bad('Put the key in the key field, not in the base URL');
  if (url.search || url.hash) throw bad('The base URL has no query or fragment (no ? or #)');
  const problem = await endpointProblem(url.href, resolve);
  if (problem) throw bad(problem);
  const normal = url.href.replace(/\/+$/, '');
  return kind === 'ollama' ? ollamaOrigin(normal) : normal;
}

function parseModels(stored: string | null): string[] | null {
  if (stored === null) return null;
  const parsed = z.array(z.string()).safeParse(JSON.parse(stored));
  return parsed.success ? parsed.data : [];
}

export interface ConnectionStore {
  list(): Promise<ConnectionView[]>;
  /** Every connection with its key opened; one whose key cannot be opened comes without it. */
  resolved(): Promise<ModelConnection[]>;
  /** One connection with its key opened, or null. */
  get(id: string): Promise<ModelConnection | null>;
  add(input: ConnectionInput): Promise<ConnectionView>;
  /** Replaces the fields given; a 404 AppError for an unknown id, a 400 to change its kind. */
  update(id: string, input: ConnectionInput): Promise<ConnectionView>;
  remove(id: string): Promise<boolean>;
}

/** `key` is read on first use, as the secret store's. `resolve`: how names become addresses (tests pass their own). */
export function createConnectionStore(
  db: Database,
  key: () => SecretsKey,
  options: { resolve?: Resolver; now?: () => Date } = {},
): ConnectionStore {
  let loaded: SecretsKey | undefined;
  const theKey = () => {
    loaded ??= key();
    return loaded;
  };
  const now = options.now ?? (() => new Date());

  function view(row: ModelConnectionRecord): ConnectionView {
    const keySet = row.ciphertext !== null;
    const unreadable = keySet && row.keyId !== theKey().id;
    return {
      id: row.id,
      kind: row.kind as ConnectionKind,
      name: row.name,
      baseUrl: displayBaseUrl(row.baseUrl),
      models: parseModels(row.models),
      keySet,
      ...(unreadable
        ? { keyProblem: 'the key was stored under another SKILLCHAT_AUTH_SECRET (or secrets key file): replace it' }
        : {}),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  function opened(row: ModelConnectionRecord): ModelConnection {
    const base = {
      id: row.id,
      kind: row.kind as ConnectionKind,
      name: row.name,
      baseUrl: row.baseUrl,
      models: parseModels(row.models),
    };
    if (row.ciphertext === null || row.iv === null || row.tag === null || row.keyId === null) return base;
    try {
      const sealed = { ciphertext: row.ciphertext, iv: row.iv, tag: row.tag, keyId: row.keyId };
      return { ...base, apiKey: openSecret(theKey(), slot(row.id), sealed) };
    } catch {
      return base;
    }
  }

  function sealed(id: string, apiKey: string | undefined) {
    const value = apiKey?.trim();
    if (!value) return { ciphertext: null, iv: null, tag: null, keyId: null };
    if (value.length < 8) throw bad('A key is at least 8 characters');
    return sealSecret(theKey(), slot(id), value);
  }

  async function record(
    id: string,
    input: ConnectionInput,
    previous: ModelConnectionRecord | null,
  ): Promise<ModelConnectionRecord> {
    const baseUrl = await normaliseBaseUrl(input.kind, input.baseUrl ?? previous?.baseUrl, options.resolve);
    const name = input.name?.trim() || previous?.name || defaultName(input.kind, baseUrl);
    const models =
      input.models === undefined
        ? (previous?.models ?? null)
        : input.models === null
          ? null
          : JSON.stringify([...new Set(input.models)]);
    if (input.apiKey === undefined && previous?.ciphertext && previous.baseUrl !== baseUrl) {
      throw bad('The base URL changed: enter the key again (a stored key only goes to the URL it was given for)');
    }
    const keyFields =
      input.apiKey === undefined && previous
        ? { ciphertext: previous.ciphertext, iv: previous.iv, tag: previous.tag, keyId: previous.keyId }
        : sealed(id, input.apiKey);
    if (input.kind === 'ollama' && keyFields.ciphertext !== null) throw bad('An Ollama takes no key');
    if ((input.kind === 'openai' || input.kind === 'anthropic') && keyFields.ciphertext === null) {
      throw bad(`${kindName(input.kind)} needs a key`);
    }
    const at = now();
    return {
      id,
      kind: input.kind,
      name,
      baseUrl,
      models,
      ...keyFields,
      createdAt: previous?.createdAt ?? at,
      updatedAt: at,
    };
  }

  return {
    async list() {
      return (await listModelConnections(db)).map(view);
    },
    async resolved() {
      return (await listModelConnections(db)).map(opened);
    },
    async get(id) {
      const row = await getModelConnection(id, db);
      return row ? opened(row) : null;
    },
    async add(input) {
      const row = await record(`conn-${randomBytes(4).toString('hex')}`, input, null);
      // Listed in the order added, also for two added within one millisecond (the list is ordered by this time).
      const last = (await listModelConnections(db)).at(-1)?.createdAt;
      if (last && row.createdAt.getTime() <= last.getTime()) row.createdAt = new Date(last.getTime() + 1);
      await insertModelConnection(row, db);
      return view(row);
    },
    async update(id, input) {
      const previous = await getModelConnection(id, db);
      if (!previous) throw new AppError('not_found:model-connection', `No model connection "${id}"`);
      if (previous.kind !== input.kind) {
        throw bad(`This connection is ${kindName(previous.kind as ConnectionKind)}: remove it and add another kind`);
      }
      const row = await record(id, input, previous);
      await updateModelConnection(row, db);
      return view(row);
    },
    remove(id) {
      return deleteModelConnection(id, db);
    },
  };
}

function defaultName(kind: ConnectionKind, baseUrl: string): string {
  if (kind === 'openai' || kind === 'anthropic') return kindName(kind);
  const host = new URL(baseUrl).host;
  return kind === 'ollama' ? `Ollama at ${host}` : host;
}
