/**
 * Keeping the reader's place when messages are added above it (an older page of a long chat arrives at the
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

/** How long a restored place is held while the page that arrived settles (ms). */
const HOLD_MS = 2000;

/**
 * Keeps the anchor's message in place while what arrived above it settles after the first paint, until the reader
 * scrolls or `ms` pass. Markdown code blocks are drawn with `content-visibility: auto` and a 200 px stand-in height,
 * and take their real height only when they come near the view: the one just above the message would otherwise pull
 * it up by the difference a frame after it was put back. Returns the disposer.
 */
export function holdAnchor(container: HTMLElement, anchor: ScrollAnchor, ms = HOLD_MS): () => void {
  const content = container.firstElementChild;
  if (!content || typeof ResizeObserver === 'undefined') return () => {};
  // Runs after layout and before paint, so the settled page never shows at the wrong place.
  const observer = new ResizeObserver(() => restoreAnchor(container, anchor));
  observer.observe(content);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
    for (const type of READER_SCROLLS) container.removeEventListener(type, stop);
  };
  const timer = setTimeout(stop, ms);
  for (const type of READER_SCROLLS) container.addEventListener(type, stop, { passive: true, once: true });
  return stop;
}

/** What the reader does to scroll; a scroll event alone does not tell theirs from ours. */
const READER_SCROLLS = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;
