'use client';
/**
 * Assistant text through streamdown, which keeps half-written Markdown (an open code fence, a table missing its last
 * row) readable while it streams. Streamdown's own classes are Tailwind utilities and this app has no Tailwind, so
 * globals.css styles its `data-streamdown` attributes instead. Images are not loaded: a model that has read a
 * skill's files could be steered into embedding a URL that leaks the chat, so they render as a plain link.
 */
import { memo } from 'react';
import { type Components, Streamdown } from 'streamdown';

// Streamdown's `Components` mixes per-tag props with a loose index signature; reading only `src` and `alt` as
// unknown satisfies both, and the checks below are needed anyway for model-written Markdown.
function ImageAsLink({ src, alt }: { src?: unknown; alt?: unknown; node?: unknown }) {
  const href = typeof src === 'string' ? src : undefined;
  const label = (typeof alt === 'string' && alt.trim()) || 'image';
  if (!href) return <span className="md-image">[{label}]</span>;
  return (
    <a className="md-image" href={href} target="_blank" rel="noopener noreferrer nofollow">
      [image: {label}]
    </a>
  );
}

const components: Components = { img: ImageAsLink };

const controls = { code: { copy: true, download: false }, table: false, mermaid: false, image: false } as const;

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <Streamdown
      className="markdown"
      isAnimating={streaming}
      controls={controls}
      lineNumbers={false}
      linkSafety={{ enabled: false }}
      components={components}
      codeBlockMaxHeight={480}
      tableMaxHeight={0}
    >
      {text}
    </Streamdown>
  );
});
