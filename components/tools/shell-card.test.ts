/** The shell card shows every hidden character of a command where it stands, as its code point. */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ToolCallView } from './registry';
import { ShellCard } from './shell-card';

function card(command: string): string {
  const call = {
    toolCallId: 'c',
    toolName: 'sandbox_exec',
    displayName: 'shell',
    status: 'waiting',
    state: 'approval-requested',
    input: { command },
    approval: { id: 'a', requestReason: 'Run a command.' },
  } as unknown as ToolCallView;
  return renderToStaticMarkup(createElement(ShellCard, { call } as never));
}

describe('ShellCard', () => {
  it('marks a bidi override, a zero-width space and a tag character in the command, and keeps none of them', () => {
    const html = card(`echo safe\u202E#txt.exe\u200B; rm x${String.fromCodePoint(0xe0041)}`);
    const marks = [...html.matchAll(/data-testid="shell-hidden-char">([^<]*)</g)].map((m) => m[1]);
    // Shown in place, in the command under the question (the header names them as text).
    expect(marks).toEqual(['U+202E', 'U+200B', 'U+E0041']);
    expect(html).toContain('⟨U+202E⟩');
    expect(html).not.toMatch(/[\u202E\u200B\u{E0041}]/u);
    expect(html).toContain('#txt.exe');
  });

  it('shows a plain command as it is', () => {
    expect(card('ls -la')).not.toContain('shell-hidden-char');
  });
});
