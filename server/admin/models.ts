/**
 * /admin's Models section: every model a chat can pick with where it came from, the connections added here (never
 * their keys), and what the section's forms do: add, edit, remove a connection and "Test" one (its model list, or
 * the sentence saying why not). Each change makes the registry read the connections again, so new chats can pick
 * the new models at once.
 */
import type { App } from '../app';
import { AppError } from '../errors';
import {
  type ConnectionInput,
  type ConnectionView,
  connectionInputSchema,
  normaliseBaseUrl,
} from '../model/connections';
import { type ListResult, listEndpointModels } from '../model/endpoint';
import type { ModelOrigin } from '../model/registry';

export interface AdminConnection extends ConnectionView {
  /** Why the environment's configuration is used instead, when it is. */
  overridden?: string;
}

export interface AdminModels {
  models: ModelOrigin[];
  connections: AdminConnection[];
}

type ModelsApp = Pick<App, 'models' | 'modelConnections'>;

export async function loadAdminModels(app: ModelsApp): Promise<AdminModels> {
  const [{ models, overridden }, connections] = await Promise.all([app.models.origins(), app.modelConnections.list()]);
  const reasons = new Map(overridden.map((o) => [o.connectionId, o.reason]));
  return {
    models,
    connections: connections.map((c) => {
      const reason = reasons.get(c.id);
      return reason ? { ...c, overridden: reason } : c;
    }),
  };
}

/** A form's body as a connection's input; a 400 naming what is wrong. */
export function parseConnectionInput(body: unknown): ConnectionInput {
  const parsed = connectionInputSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new AppError(
    'bad_request:model-connection',
    `Send { kind, name?, baseUrl?, apiKey?, models? }: ${field} is not right (${issue?.message ?? 'invalid'})`,
  );
}

export async function addConnection(app: ModelsApp, body: unknown): Promise<ConnectionView> {
  const view = await app.modelConnections.add(parseConnectionInput(body));
  await app.models.refresh();
  return view;
}

export async function updateConnection(app: ModelsApp, id: string, body: unknown): Promise<ConnectionView> {
  const view = await app.modelConnections.update(id, parseConnectionInput(body));
  await app.models.refresh();
  return view;
}

export async function removeConnection(app: ModelsApp, id: string): Promise<boolean> {
  const removed = await app.modelConnections.remove(id);
  if (removed) await app.models.refresh();
  return removed;
}

/**
 * "Test": the endpoint's model list. The key is the one typed, or (for a saved connection, `id`, with no key typed)
 * the stored one, which only goes to the URL it was stored for.
 */
export async function testConnection(app: ModelsApp, body: unknown): Promise<ListResult> {
  const { id, ...rest } = (body ?? {}) as { id?: unknown };
  const input = parseConnectionInput(rest);
  const baseUrl = await normaliseBaseUrl(input.kind, input.baseUrl);
  let apiKey = input.apiKey?.trim() || undefined;
  if (apiKey === undefined && typeof id === 'string' && input.apiKey === undefined) {
    const stored = await app.modelConnections.get(id);
    if (stored && stored.kind === input.kind && stored.baseUrl === baseUrl) apiKey = stored.apiKey;
  }
  return listEndpointModels({ kind: input.kind, baseUrl, ...(apiKey ? { apiKey } : {}) });
}
