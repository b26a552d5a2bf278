'use client';
/**
 * Where a long chat's unloaded messages are, a button that loads the next page of them, pressed by itself
 * when it comes near the view (an IntersectionObserver on the message list), and a place for the error when a load
 * fails (then only the button loads again).
 */
import { type RefObject, useEffect, useRef } from 'react';

/** How far outside the view (px) the loader starts loading: the page is there before the reader reaches it. */
const NEAR = '600px 0px';

export function PageLoader({
  direction,
  loading,
  error,
  onLoad,
  root,
}: {
  /** `earlier`: older messages above everything shown; `later`: the gap between a search hit's window and the tail. */
  direction: 'earlier' | 'later';
  loading: boolean;
  error: string | null;
  onLoad: () => void;
  root: RefObject<HTMLElement | null>;
}) {
  const ref = useRef<HTMLDivElement>(null);
  // Observed again after each load: a loader still in view after a page arrived loads the next one.
  useEffect(() => {
    const el = ref.current;
    if (!el || loading || error) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onLoad(), {
      root: root.current,
      rootMargin: NEAR,
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [loading, error, onLoad, root]);
  const label = direction === 'earlier' ? 'Load earlier messages' : 'Load the messages in between';
  return (
    <div className="page-loader" ref={ref} data-testid={`load-${direction}`} aria-busy={loading || undefined}>
      <button
        type="button"
        className="button button--ghost"
        onClick={onLoad}
        disabled={loading}
        data-testid={`load-${direction}-button`}
      >
        {loading ? 'Loading…' : label}
      </button>
      {error ? (
        <span className="page-loader__error" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
