'use client';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
/**
 * One chat: header, conversation and composer, wired to the server with AI SDK's `useChat`. Only the newest message
 * travels with each request; the server holds the history. A chat on the new-chat screen is created on first send
 * (with the id generated here), and the address bar switches to /chat/:id without remounting, so the stream goes on.
 * Answers to approval prompts on tool cards go back as answers only; the server continues the same message.
 */
import { useChats } from '@/components/chats-context';
import { uploadFile } from '@/components/files/api';
import { ChatFilesContext } from '@/components/files/chat-files-context';
import { FileViewer } from '@/components/files/file-viewer';
import { FilesPanel } from '@/components/files/files-panel';
import { useWorkspaceFiles } from '@/components/files/use-workspace-files';
import { versionTurns } from '@/components/files/version-turns';
import {
  createChat,
  errorCodeFrom,
  errorMessageFrom,
  listVersions,
  setChatModel,
  stopChat,
  switchVersion,
} from '@/components/lib/api';
import { readdressNewChat } from '@/components/lib/history';
import { type ApprovalActions, ApprovalProvider } from '@/components/tools/approval';
import type {
  Attachment,
  ChatActivation,
  ChatMessage,
  EarlierMessages,
  SkillSummary,
  VersionGroup,
} from '@/server/chat/wire-types';
import { DEFAULT_CHAT_TITLE, deriveTitle } from '@/server/db/title';
import type { ModelMenu } from '@/server/model/registry';
import { activeSkillsOf, keepSeenSkills } from './active-skills';
import { chatRequestBody, shouldSendApprovals, type UnsentApprovals } from './approvals';
import { type ActiveSkill, ChatHeader } from './chat-header';
import { Composer } from './composer';
import { afterSwitch, movedForEdit, NO_EARLIER } from './earlier-messages';
import { MessageList } from './message-list';
import { StarterSuggestions } from './starter-suggestions';
import { useEarlierMessages } from './use-earlier-messages';

export interface ChatViewProps {
  chatId: string;
  /** The chat does not exist on the server yet: the first send creates it. */
  isNew: boolean;
  initialTitle: string;
  /** The newest messages (a long chat's newest page), which `useChat` holds and answers stream into. */
  initialMessages: ChatMessage[];
  /** Messages shown above them (a search hit's window); older pages load as the person scrolls up. */
  initialEarlier?: EarlierMessages;
  /** A search hit's message: the chat opens scrolled to it. */
  target?: string;
  initialActivations: ChatActivation[];
  /** The groups of versions on the chat's path (edited messages, regenerated answers). */
  initialVersions?: VersionGroup[];
  /** The models to pick from, and the default for a chat that has not picked one. */
  models: ModelMenu;
  /** The chat's picked model, if any. */
  initialModel?: string;
}

/** Resolves a waiting send with whether the server took its message; set by `onSend`, settled by the transport. */
type SendWatch = { current: ((accepted: boolean) => void) | null };

function createTransport(unsent: UnsentApprovals, sendWatch: SendWatch) {
  const settle = (accepted: boolean) => {
    sendWatch.current?.(accepted);
    sendWatch.current = null;
  };
  return new DefaultChatTransport<ChatMessage>({
    api: '/api/chat',
    // The response's status arrives long before the answer ends: it tells the composer whether the message was
    // taken or refused (409 while another tab's answer runs), so a refused one goes back into the box.
    fetch: async (input, init) => {
      const sending = init?.method === 'POST';
      try {
        const response = await fetch(input, init);
        if (sending) settle(response.ok);
        return response;
      } catch (error) {
        if (sending) settle(false);
        throw error;
      }
    },
    prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
      body: chatRequestBody({ id, messages, trigger, messageId }, unsent),
    }),
    // A reload or a second tab follows the running answer: the server replays it from its start (204 when idle).
    prepareReconnectToStreamRequest: ({ id }) => ({ api: `/api/chats/${encodeURIComponent(id)}/stream` }),
  });
}

export function ChatView({
  chatId,
  isNew,
  initialTitle,
  initialMessages,
  initialEarlier,
  target,
  initialActivations,
  initialVersions,
  models,
  initialModel,
}: ChatViewProps) {
  const { chats, upsertChat, touchChat, refreshChats, setActiveChatId } = useChats();
  const [created, setCreated] = useState(!isNew);
  // Picked on the new-chat screen before the chat exists: stored with the chat on first send.
  const [model, setModel] = useState(initialModel ?? models.defaultId);
  const [modelPicked, setModelPicked] = useState(initialModel !== undefined);
  const [sendError, setSendError] = useState<string | null>(null);
  const [draft, setDraft] = useState<{ text: string } | null>(null);
  // The answer Stop was pressed on: it reads "Stopped" at once, before the server's stored status is loaded.
  const [stoppedId, setStoppedId] = useState<string | null>(null);
  // Both live as long as the page: answers given on cards until a request carries them, and which were "always".
  const [unsent] = useState<UnsentApprovals>(() => new Map());
  const [alwaysIds] = useState(() => new Set<string>());
  const [sendWatch] = useState<SendWatch>(() => ({ current: null }));
  const transport = useMemo(() => createTransport(unsent, sendWatch), [unsent, sendWatch]);

  const [versions, setVersions] = useState<VersionGroup[]>(initialVersions ?? []);
  const { messages, setMessages, sendMessage, regenerate, stop, status, error, clearError, addToolApprovalResponse } =
    useChat<ChatMessage>({
      id: chatId,
      messages: initialMessages,
      transport,
      resume: !isNew,
      // Fewer React commits while tokens pour in; streamdown re-parses on each one.
      throttle: 40,
      // The server derives the title from the first message and orders chats by their last answer: adopt both.
      onFinish: () => void refreshChats(),
      // Once every prompt of the answer is answered, send the answers; the reply continues the same message.
      sendAutomaticallyWhen: ({ messages }) => shouldSendApprovals(messages, unsent),
    });

  const history = useEarlierMessages(chatId, initialEarlier ?? NO_EARLIER, messages);
  const { earlier, replace: replaceEarlier } = history;

  const busy = status === 'submitted' || status === 'streaming';
  // A send refused because the chat is still answering (in another tab, or on another instance) goes back into the
  // box (`onSend`); the error line then offers to stop that answer, since this page has no Stop button for it.
  const [answeringElsewhere, setAnsweringElsewhere] = useState(false);
  useEffect(() => {
    if (error && errorCodeFrom(error.message) === 'conflict:chat') setAnsweringElsewhere(true);
  }, [error]);
  const approvals = useMemo<ApprovalActions>(
    () => ({
      busy,
      isAlways: (id) => alwaysIds.has(id),
      answer: (approvalId, approved, always) => {
        setSendError(null);
        clearError();
        unsent.set(approvalId, always ? { approvalId, approved, always } : { approvalId, approved });
        if (always) alwaysIds.add(approvalId);
        void addToolApprovalResponse({ id: approvalId, approved });
      },
    }),
    [busy, alwaysIds, unsent, clearError, addToolApprovalResponse],
  );
  const title = chats.find((c) => c.id === chatId)?.title ?? (created ? initialTitle : DEFAULT_CHAT_TITLE);
  const seenSkills = useRef<ActiveSkill[]>([]);
  const skills = useMemo(() => {
    // Idempotent (merging the same list again changes nothing), so a repeated render keeps it consistent.
    seenSkills.current = keepSeenSkills(seenSkills.current, activeSkillsOf(initialActivations, messages));
    return seenSkills.current;
  }, [initialActivations, messages]);

  // A chat exists on the server before its first file is uploaded or its first message sent.
  const ensureCreated = useCallback(
    async (text: string, attached: readonly string[] = []): Promise<boolean> => {
      if (!created) {
        try {
          const chat = await createChat({ id: chatId });
          if (modelPicked) await setChatModel(chatId, model);
          // The server names the chat from its first message once the turn starts; show a close guess until then.
          upsertChat({ ...chat, title: deriveTitle(text, attached) });
        } catch (e) {
          setSendError(e instanceof Error ? e.message : 'Could not create the chat');
          return false;
        }
        setCreated(true);
        setActiveChatId(chatId);
        // No navigation: the stream about to start keeps this component; a reload lands on the server-rendered chat.
        readdressNewChat(chatId);
      }
      return true;
    },
    [created, chatId, setActiveChatId, upsertChat, model, modelPicked],
  );

  const onSend = useCallback(
    async (text: string, attachments: Attachment[]): Promise<boolean> => {
      setSendError(null);
      setAnsweringElsewhere(false);
      clearError();
      if (
        !(await ensureCreated(
          text,
          attachments.map((a) => a.name),
        ))
      )
        return false;
      touchChat(chatId);
      const accepted = new Promise<boolean>((resolve) => {
        sendWatch.current = resolve;
      });
      // The time shows at once; the server stores its own.
      const sent = sendMessage({
        text,
        metadata: { createdAt: Date.now(), ...(attachments.length > 0 ? { attachments } : {}) },
      }).then(
        () => true,
        () => false,
      );
      if (await Promise.race([accepted, sent])) return true;
      // Refused (an answer still runs, from another tab) or never arrived: the message is not in the chat. It
      // leaves the list and goes back into the box; the error line says why.
      setMessages((list) => {
        const last = list.at(-1);
        return last?.role === 'user' ? list.slice(0, -1) : list;
      });
      return false;
    },
    [chatId, clearError, ensureCreated, sendMessage, touchChat, sendWatch, setMessages],
  );

  const [filesVersion, setFilesVersion] = useState(0);
  const onUpload = useCallback(
    async (file: File): Promise<Attachment> => {
      if (!(await ensureCreated(file.name))) throw new Error('Could not create the chat');
      const saved = await uploadFile(chatId, file);
      setFilesVersion((v) => v + 1);
      return saved;
    },
    [chatId, ensureCreated],
  );
  // Scripts may have written files: reload the files panel when an answer ends.
  useEffect(() => {
    if (status === 'ready' || status === 'error') setFilesVersion((v) => v + 1);
  }, [status]);
  const files = useWorkspaceFiles(created ? chatId : null, filesVersion);
  // The file open in the viewer beside the chat (its path), if any.
  const [viewing, setViewing] = useState<string | null>(null);
  const closeViewer = useCallback(() => setViewing(null), []);
  // Turns are counted from the chat's start: with earlier messages not loaded, versions are labelled by time.
  const turns = useMemo(
    () =>
      earlier.hasEarlier || earlier.gap ? new Map<string, number>() : versionTurns([...earlier.messages, ...messages]),
    [earlier, messages],
  );
  const turnOf = useCallback((version: string) => turns.get(version), [turns]);
  const chatFiles = useMemo(
    () => (created ? { chatId, version: filesVersion, files, openFile: setViewing } : null),
    [created, chatId, filesVersion, files],
  );

  const onPickModel = useCallback(
    (id: string) => {
      const before = model;
      setModel(id);
      setModelPicked(true);
      setSendError(null);
      if (!created) return;
      setChatModel(chatId, id).catch((e: unknown) => {
        setModel(before);
        setSendError(e instanceof Error ? e.message : 'Could not change the model');
      });
    },
    [chatId, created, model],
  );

  const onRegenerate = useCallback(() => {
    setSendError(null);
    clearError();
    void regenerate();
  }, [clearError, regenerate]);

  // An edit or a regenerated answer made a version on the server; fetch the switchers' counts.
  const wasBusy = useRef(false);
  useEffect(() => {
    const nowBusy = status === 'submitted' || status === 'streaming';
    if (wasBusy.current && !nowBusy && created) {
      listVersions(chatId)
        .then(setVersions)
        .catch(() => {});
    }
    wasBusy.current = nowBusy;
  }, [status, chatId, created]);

  const onEditMessage = useCallback(
    (messageId: string, text: string) => {
      setSendError(null);
      clearError();
      const before = messages.find((m) => m.id === messageId) ?? earlier.messages.find((m) => m.id === messageId);
      // `useChat` edits only the messages it holds: one of an older page moves into them first.
      const moved = movedForEdit(earlier, messageId);
      if (moved) {
        replaceEarlier(moved.earlier);
        setMessages(moved.tail);
      }
      touchChat(chatId);
      void sendMessage({
        text,
        messageId,
        metadata: {
          createdAt: Date.now(),
          ...(before?.metadata?.attachments ? { attachments: before.metadata.attachments } : {}),
        },
      });
    },
    [chatId, clearError, messages, earlier, replaceEarlier, setMessages, sendMessage, touchChat],
  );

  const onSwitchVersion = useCallback(
    (parentId: string, version: number) => {
      setSendError(null);
      switchVersion(chatId, parentId, version)
        .then((view) => {
          // What is shown up to the group stays; the server's messages from the group on replace the rest.
          const shown = afterSwitch({ earlier, tail: messages }, parentId, view);
          replaceEarlier(shown.earlier);
          setMessages(shown.tail);
          setVersions(view.versions);
        })
        .catch((e: unknown) => setSendError(e instanceof Error ? e.message : 'Could not show that version'));
    },
    [chatId, earlier, messages, replaceEarlier, setMessages],
  );

  // The cut answer stays as it is; the model is asked for the rest in a new turn, with the partial answer in view.
  const onContinue = useCallback(() => {
    void onSend('Continue where your last answer stopped.', []);
  }, [onSend]);

  const onStop = useCallback(() => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') setStoppedId(last.id);
    // The server keeps answering when only the browser lets go (so a closed tab loses nothing): stop both.
    void stopChat(chatId).catch(() => {});
    void stop();
  }, [chatId, stop, messages]);

  // Stop for an answer this page is not following (another tab or instance): the server stops it where it runs.
  const onStopElsewhere = useCallback(() => {
    setAnsweringElsewhere(false);
    setSendError(null);
    clearError();
    stopChat(chatId).catch((e: unknown) => setSendError(e instanceof Error ? e.message : 'Could not stop the answer'));
  }, [chatId, clearError]);

  const shown = useMemo(
    () =>
      stoppedId === null
        ? messages
        : messages.map((m) =>
            m.id === stoppedId && !m.metadata?.status
              ? { ...m, metadata: { ...m.metadata, status: 'aborted' as const } }
              : m,
          ),
    [messages, stoppedId],
  );

  const shownError = sendError ?? (error ? errorMessageFrom(error.message, 'The answer failed. Try again.') : null);

  return (
    <ChatFilesContext.Provider value={chatFiles}>
      <div className={`chat-area${viewing ? ' chat-area--viewing' : ''}`}>
        <section className="chat" aria-label={title}>
          <ChatHeader
            title={title}
            models={models}
            model={model}
            onPickModel={onPickModel}
            skills={skills}
            exportChatId={created ? chatId : null}
          />
          <ApprovalProvider value={approvals}>
            <MessageList
              messages={shown}
              status={status}
              onRegenerate={onRegenerate}
              onContinue={onContinue}
              versions={versions}
              onSwitchVersion={onSwitchVersion}
              onEditMessage={created ? onEditMessage : undefined}
              history={history}
              target={target}
              empty={<EmptyChat onPick={(skill) => setDraft({ text: `/${skill.name} ` })} />}
            />
          </ApprovalProvider>
          <div className="chat__bottom">
            <FilesPanel />
            {shownError ? (
              <div className="chat-error" role="alert" data-testid="chat-error">
                <span>{shownError}</span>
                {answeringElsewhere ? (
                  <button
                    type="button"
                    className="button button--ghost"
                    data-testid="stop-elsewhere-button"
                    onClick={onStopElsewhere}
                  >
                    Stop that answer
                  </button>
                ) : null}
                <button
                  type="button"
                  className="button button--ghost"
                  onClick={() => {
                    setSendError(null);
                    setAnsweringElsewhere(false);
                    clearError();
                  }}
                >
                  Dismiss
                </button>
              </div>
            ) : null}
            <Composer busy={busy} onSend={onSend} onStop={onStop} onUpload={onUpload} autoFocus draft={draft} />
          </div>
        </section>
        {viewing && chatFiles ? (
          <FileViewer
            chatId={chatId}
            name={viewing}
            file={files.find((f) => f.name === viewing) ?? null}
            version={filesVersion}
            turnOf={turnOf}
            onClose={closeViewer}
          />
        ) : null}
      </div>
    </ChatFilesContext.Provider>
  );
}

function EmptyChat({ onPick }: { onPick: (skill: SkillSummary) => void }) {
  return (
    <div className="empty-chat" data-testid="empty-chat">
      <h2>What can I help with?</h2>
      <p>
        Ask anything. Skills are picked up when your request matches one, or choose one yourself: type <kbd>/</kbd> at
        the start of a message.
      </p>
      <StarterSuggestions onPick={onPick} />
    </div>
  );
}
