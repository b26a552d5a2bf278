'use client';
import { generateId } from 'ai';
import { useState } from 'react';
/**
 * The new-chat screen. The id is made here so the first send can create the chat and stream into it at once; a new
 * key from "New chat" remounts it with a fresh id and an empty conversation.
 */
import { useChats } from '@/components/chats-context';
import type { ModelMenu } from '@/server/model/registry';
import { ChatView } from './chat-view';

function FreshChat({ models }: { models: ModelMenu }) {
  // Not in the markup, so the server's and the browser's different ids never meet in hydration.
  const [chatId] = useState(() => generateId());
  return (
    <ChatView
      chatId={chatId}
      isNew
      initialTitle="New chat"
      initialMessages={[]}
      initialActivations={[]}
      models={models}
    />
  );
}

export function NewChat({ models }: { models: ModelMenu }) {
  const { newChatKey } = useChats();
  return <FreshChat key={newChatKey} models={models} />;
}
