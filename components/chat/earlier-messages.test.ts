import { describe, expect, it } from 'vitest';
import type { ChatMessage, EarlierMessages } from '@/server/chat/wire-types';
import { afterSwitch, firstShownId, movedForEdit, NO_EARLIER, withLaterPage, withOlderPage } from './earlier-messages';

const m = (id: string): ChatMessage => ({ id, role: 'user', parts: [{ type: 'text', text: id }] });
const list = (...ids: string[]) => ids.map(m);
const ids = (messages: ChatMessage[]) => messages.map((x) => x.id);
const earlier = (messageIds: string[], more: Partial<EarlierMessages> = {}): EarlierMessages => ({
  messages: list(...messageIds),
  hasEarlier: true,
  gap: false,
  ...more,
});

describe('older pages above the tail', () => {
  it('asks before the first message shown', () => {
    expect(firstShownId(NO_EARLIER, list('t1', 't2'))).toBe('t1');
    expect(firstShownId(earlier(['e1']), list('t1'))).toBe('e1');
    expect(firstShownId(NO_EARLIER, [])).toBeUndefined();
  });

  it('puts an older page on top, once, and takes its hasEarlier', () => {
    const next = withOlderPage(earlier(['e3', 'e4']), {
      messages: list('e1', 'e2', 'e3'),
      hasEarlier: false,
      hasLater: true,
    });
    expect(ids(next.messages)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(next.hasEarlier).toBe(false);
  });

  it('fills the gap below a search hit up to the tail, closing it when the tail is reached', () => {
    const window = earlier(['h1', 'h2'], { gap: true });
    const tail = list('t1', 't2');
    const part = withLaterPage(window, { messages: list('h3', 'h4'), hasEarlier: true, hasLater: true }, tail);
    expect(part).toMatchObject({ gap: true });
    expect(ids(part.messages)).toEqual(['h1', 'h2', 'h3', 'h4']);
    const met = withLaterPage(part, { messages: list('h5', 't1', 't2'), hasEarlier: true, hasLater: false }, tail);
    expect(met.gap).toBe(false);
    expect(ids(met.messages)).toEqual(['h1', 'h2', 'h3', 'h4', 'h5']);
  });
});

describe('editing a message of an older page', () => {
  it('moves it into the tail; the messages after it are replaced by the new answer', () => {
    const moved = movedForEdit(earlier(['e1', 'e2', 'e3'], { gap: true }), 'e2')!;
    expect(ids(moved.earlier.messages)).toEqual(['e1']);
    expect(moved.earlier).toMatchObject({ hasEarlier: true, gap: false });
    expect(ids(moved.tail)).toEqual(['e2']);
    expect(movedForEdit(earlier(['e1']), 't1')).toBeNull();
  });
});

describe('a version switch', () => {
  const shown = { earlier: earlier(['e1', 'e2', 'e3']), tail: list('t1', 't2', 't3') };

  it('in the tail keeps what comes before the group and takes the rest from the newest page', () => {
    const next = afterSwitch(shown, 't1', {
      messages: list('t0', 't1', 'v2', 'v3'),
      earlier: { messages: [], hasEarlier: true, gap: false },
    });
    expect(ids(next.earlier.messages)).toEqual(['e1', 'e2', 'e3']);
    expect(ids(next.tail)).toEqual(['t1', 'v2', 'v3']);
  });

  it('in an older page keeps the messages up to the group and takes the window after it, gap included', () => {
    const next = afterSwitch(shown, 'e2', {
      messages: list('n1', 'n2'),
      earlier: { messages: list('v1', 'v2'), hasEarlier: true, gap: true },
    });
    expect(ids(next.earlier.messages)).toEqual(['e1', 'e2', 'v1', 'v2']);
    expect(next.earlier).toMatchObject({ hasEarlier: true, gap: true });
    expect(ids(next.tail)).toEqual(['n1', 'n2']);
  });

  it('at the chat start takes the server window alone', () => {
    const next = afterSwitch(shown, '', {
      messages: list('v1', 'v2'),
      earlier: { messages: [], hasEarlier: false, gap: false },
    });
    expect(next.earlier).toEqual({ messages: [], hasEarlier: false, gap: false });
    expect(ids(next.tail)).toEqual(['v1', 'v2']);
  });

  it('in the tail with a long new path leaves a gap below the kept messages', () => {
    const next = afterSwitch(shown, 't2', {
      messages: list('n1'),
      earlier: { messages: list('v1'), hasEarlier: true, gap: true },
    });
    expect(ids(next.earlier.messages)).toEqual(['e1', 'e2', 'e3', 't1', 't2', 'v1']);
    expect(next.earlier.gap).toBe(true);
    expect(ids(next.tail)).toEqual(['n1']);
  });

  it('falls back to the newest page when it cannot stitch (a parent not shown, or a second gap)', () => {
    const window = { messages: list('n1'), earlier: { messages: list('v1'), hasEarlier: true, gap: true } };
    expect(afterSwitch(shown, 'unknown', window)).toEqual({
      earlier: { messages: [], hasEarlier: true, gap: false },
      tail: window.messages,
    });
    const gapped = { earlier: earlier(['e1'], { gap: true }), tail: list('t1', 't2') };
    expect(afterSwitch(gapped, 't1', window).earlier).toEqual({ messages: [], hasEarlier: true, gap: false });
  });
});
