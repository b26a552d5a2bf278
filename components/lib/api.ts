/**
 * Browser-side calls to the app's JSON API. Every state-changing request is a same-origin fetch so the browser sends
 * `Origin` (the server refuses cross-site writes). Failures become `ApiError` with the server's `{ error }` message.
 */
import type { ChatSummary, ChatWindow, MessagePage, SkillSummary, VersionGroup } from '@/server/chat/wire-types';
import type { ModelMenu } from '@/server/model/registry';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Pulls `error` out of a JSON error body; falls back to the raw text (or a generic line) otherwise. */
export function errorMessageFrom(body: string, fallback: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'error' in parsed && typeof parsed.error === 'string') {
      return parsed.error;
    }
  } catch {
    // Not JSON: a proxy page or a plain-text error. Show it only when it is short enough to be a message.
  }
  const text = body.trim();
  return text && text.length < 300 && !text.startsWith('<') ? text : fallback;
}

/** The `code` of a JSON error body (`{ error, code }`), or null. */
export function errorCodeFrom(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'code' in parsed && typeof parsed.code === 'string') return parsed.code;
  } catch {
    // Not JSON.
  }
  return null;
}

async function request<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, {
    ...init,
    credentials: 'same-origin',
    headers: init.body ? { 'content-type': 'application/json', ...init.headers } : init.headers,
  });
  if (!response.ok) {
    const body = await response.text();
    throw new ApiError(errorMessageFrom(body, `Request failed (${response.status})`), response.status);
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export function createChat(input: { id: string; title?: string }): Promise<ChatSummary> {
  return request<{ chat: ChatSummary }>('/api/chats', { method: 'POST', body: JSON.stringify(input) }).then(
    (r) => r.chat,
  );
}

export function renameChat(id: string, title: string): Promise<ChatSummary> {
  return request<{ chat: ChatSummary }>(`/api/chats/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: JSON.stringify({ title }),
  }).then((r) => r.chat);
}

export function deleteChat(id: string): Promise<void> {
  return request<void>(`/api/chats/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function searchSkills(q: string, signal?: AbortSignal): Promise<SkillSummary[]> {
  return request<{ skills: SkillSummary[] }>(`/api/skills?q=${encodeURIComponent(q)}`, { signal }).then(
    (r) => r.skills,
  );
}

export function listChats(): Promise<ChatSummary[]> {
  return request<{ chats: ChatSummary[] }>('/api/chats').then((r) => r.chats);
}

/** Chats whose title or messages match every word of `q` (word prefixes). */
export function searchChats(q: string, signal?: AbortSignal): Promise<ChatSummary[]> {
  return request<{ chats: ChatSummary[] }>(`/api/chats?q=${encodeURIComponent(q)}`, { signal }).then((r) => r.chats);
}

/** Aborts the server's running answer; the server stores it as far as it got. */
export function stopChat(id: string): Promise<void> {
  return request<unknown>(`/api/chats/${encodeURIComponent(id)}/stop`, { method: 'POST' }).then(() => undefined);
}

/** Picks the chat's model (`provider:model` from `listModels`); the next answer uses it. */
export function setChatModel(id: string, model: string): Promise<ChatSummary> {
  return request<{ chat: ChatSummary }>(`/api/chats/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: JSON.stringify({ model }),
  }).then((r) => r.chat);
}

/** Every model available now, after the server has asked the model servers. */
export function listModels(signal?: AbortSignal): Promise<ModelMenu> {
  return request<ModelMenu>('/api/models', { signal });
}

/** The chat's groups of versions (edited messages, regenerated answers). */
export function listVersions(id: string): Promise<VersionGroup[]> {
  return request<{ versions: VersionGroup[] }>(`/api/chats/${encodeURIComponent(id)}/versions`).then((r) => r.versions);
}

/**
 * Shows version `version` of the group after `parentId`: the versions after the switch, the chat's newest page and
 * the messages from the group on above it (`earlier-messages.ts` `afterSwitch` stitches them in).
 */
export function switchVersion(
  id: string,
  parentId: string,
  version: number,
): Promise<ChatWindow & { versions: VersionGroup[] }> {
  return request(`/api/chats/${encodeURIComponent(id)}/versions`, {
    method: 'POST',
    body: JSON.stringify({ parentId, version }),
  });
}

/** A page of a long chat's messages, before or after one of them (oldest first). */
export function loadMessagePage(
  id: string,
  cursor: { before: string } | { after: string },
  signal?: AbortSignal,
): Promise<MessagePage> {
  const query =
    'before' in cursor ? `before=${encodeURIComponent(cursor.before)}` : `after=${encodeURIComponent(cursor.after)}`;
  return request<MessagePage>(`/api/chats/${encodeURIComponent(id)}/messages?${query}`, { signal });
}

/** A skill the person may switch off for themselves. */
export interface SkillPref {
  name: string;
  description: string;
  disabled: boolean;
}

export function listSkillPrefs(signal?: AbortSignal): Promise<SkillPref[]> {
  return request<{ skills: SkillPref[] }>('/api/me/skills', { signal }).then((r) => r.skills);
}

export function setSkillPref(name: string, disabled: boolean): Promise<SkillPref> {
  return request<SkillPref>(`/api/me/skills/${encodeURIComponent(name)}`, {
    method: 'PUT',
    body: JSON.stringify({ disabled }),
  });
}
