/**
 * Keeping the reader's place when messages are added above it (issue 26: an older page of a long chat arrives at the
 * top). Browsers with CSS scroll anchoring do this themselves, Safari does not: the first message in view is noted
 * before the change and scrolled back to the same offset after it.
 */
export interface ScrollAnchor {
  id: string;
  /** Its top, relative to the scroll container's top, in px. */
  offset: number;
}

function messagesIn(container: HTMLElement): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>('[data-message-id]')];
}

/** The first message whose bottom is below the container's top edge (the one being read), or null. */
export function captureAnchor(container: HTMLElement): ScrollAnchor | null {
  const top = container.getBoundingClientRect().top;
  for (const el of messagesIn(container)) {
    const box = el.getBoundingClientRect();
    if (box.bottom > top) return { id: el.dataset.messageId ?? '', offset: box.top - top };
  }
  return null;
}

/** Scrolls so the anchor's message is where it was; nothing when it is gone. */
export function restoreAnchor(container: HTMLElement, anchor: ScrollAnchor): void {
  const el = container.querySelector(`[data-message-id="${CSS.escape(anchor.id)}"]`);
  if (!el) return;
  const offset = el.getBoundingClientRect().top - container.getBoundingClientRect().top;
  container.scrollTop += offset - anchor.offset;
}
