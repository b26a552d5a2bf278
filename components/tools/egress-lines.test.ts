/** The card's egress lines: what went through, and what was refused with the reason. */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { EgressLines } from './egress-lines';

describe('EgressLines', () => {
  it('shows one line per host:port, allowed or refused', () => {
    const html = renderToStaticMarkup(
      createElement(EgressLines, {
        lines: [
          { host: 'api.github.com', port: 443, allowed: true, requests: 3, bytesIn: 12000, bytesOut: 300 },
          {
            host: 'example.com',
            port: 443,
            allowed: false,
            requests: 1,
            bytesIn: 0,
            bytesOut: 0,
            reason: 'example.com:443 is not granted to github-issues.',
          },
        ],
      }),
    );
    const lines = [...html.matchAll(/data-testid="egress-line"[^>]*data-allowed="(yes|no)"[^>]*>([^<]*)</g)].map(
      (m) => [m[1], m[2]],
    );
    expect(lines).toEqual([
      ['yes', 'api.github.com:443 · 3 requests · 12 KB'],
      ['no', 'example.com:443 · refused: not granted to github-issues'],
    ]);
  });

  it('shows nothing for a run without egress', () => {
    expect(renderToStaticMarkup(createElement(EgressLines, { lines: undefined }))).toBe('');
    expect(renderToStaticMarkup(createElement(EgressLines, { lines: [] }))).toBe('');
  });
});
