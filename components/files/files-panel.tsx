'use client';
/**
 * The chat's files, uploads and what scripts made, as a tree of folders (each collapsible); the files the latest
 * run created or changed are marked, and so are the folders holding them. A file's name opens it in the viewer.
 */
import type { WorkspaceFileView } from '@/server/chat/wire-types';
import { fileUrl, formatBytes } from './api';
import { useChatFiles } from './chat-files-context';
import { buildTree, type TreeNode } from './tree';

function ChangeMark({ change }: { change: WorkspaceFileView['change'] }) {
  if (!change) return null;
  return (
    <span className={`files-panel__mark files-panel__mark--${change}`} data-testid="files-panel-mark">
      {change === 'created' ? 'new' : 'changed'}
    </span>
  );
}

function Node({
  node,
  chatId,
  open,
}: {
  node: TreeNode<WorkspaceFileView>;
  chatId: string;
  open: (n: string) => void;
}) {
  if (node.kind === 'folder') {
    return (
      <li data-testid="files-panel-folder" data-path={node.path}>
        <details open={node.fileCount <= 5}>
          <summary>
            <span className="files-panel__folder">{node.name}/</span>
            <span>
              {node.fileCount} {node.fileCount === 1 ? 'file' : 'files'}
              {node.changedCount > 0 ? ` · ${node.changedCount} new or changed` : ''}
            </span>
          </summary>
          <ul>
            {node.children.map((c) => (
              <Node key={c.path} node={c} chatId={chatId} open={open} />
            ))}
          </ul>
        </details>
      </li>
    );
  }
  const f = node.file;
  return (
    <li data-testid="files-panel-item" data-origin={f.origin} data-path={f.name} data-change={f.change ?? ''}>
      <button type="button" className="files-panel__open" onClick={() => open(f.name)} data-testid="files-panel-open">
        {node.name}
      </button>
      <ChangeMark change={f.change} />
      <span>
        {formatBytes(f.size)} · {f.origin === 'upload' ? 'uploaded' : 'from a script'}
      </span>
      <a href={fileUrl(chatId, f.name)} download={node.name} className="files-panel__download">
        Download
      </a>
    </li>
  );
}

export function FilesPanel() {
  const chat = useChatFiles();
  const chatId = chat?.chatId;
  const files = chat?.files ?? [];
  if (!chat || !chatId || files.length === 0) return null;
  const tree = buildTree(files, (f) => f.change !== undefined);
  return (
    <details className="files-panel" data-testid="files-panel">
      <summary>
        Files <span className="files-panel__count">{files.length}</span>
        {tree.changedCount > 0 ? (
          <span className="files-panel__changed"> {tree.changedCount} new or changed</span>
        ) : null}
      </summary>
      <ul className="files-panel__tree">
        {tree.children.map((c) => (
          <Node key={c.path} node={c} chatId={chatId} open={chat.openFile} />
        ))}
      </ul>
    </details>
  );
}
