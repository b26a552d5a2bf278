import { describe, expect, it } from 'vitest';
import { applySecurityHeaders, LIVE_HTML_CSP } from './headers';

function headersFor(pathname: string): Headers {
  const headers = new Headers({ 'access-control-allow-origin': '*' });
  applySecurityHeaders(headers, pathname);
  return headers;
}

describe('applySecurityHeaders', () => {
  it('forbids framing everywhere but the viewer route, and drops CORS', () => {
    for (const p of ['/', '/api/chats', '/api/chats/c1/files', '/chat/c1']) {
      const headers = headersFor(p);
      expect(headers.get('content-security-policy'), p).toBe("frame-ancestors 'none'");
      expect(headers.get('x-frame-options'), p).toBe('DENY');
      expect(headers.get('access-control-allow-origin'), p).toBeNull();
    }
  });

  it('serves a chat file under a sandbox with no sources, never framed', () => {
    for (const p of ['/api/chats/c1/files/report.html', '/api/chats/c1/files/site/app.html']) {
      const headers = headersFor(p);
      expect(headers.get('content-security-policy'), p).toBe("sandbox; default-src 'none'; frame-ancestors 'none'");
      expect(headers.get('x-frame-options'), p).toBe('DENY');
    }
  });

  it("lets this site frame a skill's page, under the page's whole policy: scripts, no network, no same origin", () => {
    const headers = headersFor('/api/chats/c1/view/site/app.html');
    expect(headers.get('content-security-policy')).toBe(LIVE_HTML_CSP);
    expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(LIVE_HTML_CSP).toContain("default-src 'none'");
    expect(LIVE_HTML_CSP).toContain('sandbox allow-scripts;');
    expect(LIVE_HTML_CSP).not.toContain('allow-same-origin');
    expect(LIVE_HTML_CSP).not.toMatch(/connect-src/);
  });
});
