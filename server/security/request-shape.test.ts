import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ROUTES, checkRequestShape } from './request-shape';

const APP = path.join(import.meta.dirname, '..', '..', 'app');

/** `app/api/**\/route.ts` (and the skill server's routes) as `{ pattern, methods }`, read from the files' exports. */
function routesOnDisk(): Array<{ pattern: string; methods: string[] }> {
  const out: Array<{ pattern: string; methods: string[] }> = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(p);
      else if (entry.name === 'route.ts') {
        const source = fs.readFileSync(p, 'utf8');
        const methods = [...source.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)]
          .map((m) => m[1]!)
          .sort();
        out.push({ pattern: `/${path.relative(APP, path.dirname(p)).split(path.sep).join('/')}`, methods });
      }
    }
  };
  visit(path.join(APP, 'api'));
  visit(path.join(APP, 'mcp'));
  visit(path.join(APP, '.well-known'));
  return out;
}

describe('the route table', () => {
  it('lists every API route with the methods its file exports', () => {
    const byPattern = (a: { pattern: string }, b: { pattern: string }) => a.pattern.localeCompare(b.pattern);
    const table = API_ROUTES.map((r) => ({ pattern: r.pattern, methods: [...r.methods].sort() })).sort(byPattern);
    expect(table).toEqual(routesOnDisk().sort(byPattern));
  });
});

describe('malformed percent-escapes', () => {
  it('are a 400 on APIs and pages alike', () => {
    for (const p of [
      '/api/chats/%ZZ',
      '/api/chats/%C0%AF/stop',
      '/chat/%E0%A4%A',
      '/api/admin/skills/%ZZ/mode',
      '/%',
    ]) {
      expect(checkRequestShape('GET', p)).toMatchObject({ ok: false, status: 400, code: 'bad_request:path' });
    }
  });

  it('well-formed escapes pass, including encoded slashes and UTF-8', () => {
    for (const p of ['/api/chats/a%2Fb', '/api/chats/%E2%9C%93', '/chat/%25']) {
      expect(checkRequestShape('GET', p)).toEqual({ ok: true });
    }
  });
});

describe('methods', () => {
  it('a method the route lacks is a 405 naming the ones it has', () => {
    expect(checkRequestShape('PUT', '/api/chats')).toMatchObject({
      ok: false,
      status: 405,
      code: 'method_not_allowed:request',
      allow: 'GET, POST, HEAD, OPTIONS',
    });
    expect(checkRequestShape('GET', '/api/chat')).toMatchObject({ status: 405, allow: 'POST, OPTIONS' });
    expect(checkRequestShape('DELETE', '/api/chats/abc/stop')).toMatchObject({ status: 405 });
  });

  it('the route’s own methods, HEAD with GET, and OPTIONS pass', () => {
    expect(checkRequestShape('PATCH', '/api/chats/abc')).toEqual({ ok: true });
    expect(checkRequestShape('HEAD', '/api/status')).toEqual({ ok: true });
    expect(checkRequestShape('OPTIONS', '/api/chat')).toEqual({ ok: true });
    expect(checkRequestShape('POST', '/api/chats/')).toEqual({ ok: true });
  });

  it('pages are read-only; methods outside HTTP’s usual set are refused everywhere', () => {
    expect(checkRequestShape('GET', '/chat/abc')).toEqual({ ok: true });
    expect(checkRequestShape('PUT', '/')).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    expect(checkRequestShape('PROPFIND', '/api/chats')).toMatchObject({ status: 405 });
    expect(checkRequestShape('FOO', '/_next/static/chunk.js')).toMatchObject({ status: 405 });
  });

  it('an API path no route has is a JSON 404 (Next would render its HTML page)', () => {
    for (const p of ['/api/not-a-route', '/api/admin/revoke', '/api', '/api/chats/a/b/c']) {
      expect(checkRequestShape('GET', p)).toMatchObject({ ok: false, status: 404, code: 'not_found:route' });
    }
  });

  it('leaves Next’s own paths to Next', () => {
    expect(checkRequestShape('POST', '/_next/static/chunk.js')).toEqual({ ok: true });
  });
});

describe('the skill server routes', () => {
  it('POST /mcp only (stateless: GET and DELETE are 405), GET and HEAD on the well-known files', () => {
    expect(checkRequestShape('POST', '/mcp')).toEqual({ ok: true });
    expect(checkRequestShape('GET', '/mcp')).toMatchObject({ ok: false, status: 405, allow: 'POST, OPTIONS' });
    expect(checkRequestShape('DELETE', '/mcp')).toMatchObject({ ok: false, status: 405 });
    expect(checkRequestShape('GET', '/.well-known/agent-skills/index.json')).toEqual({ ok: true });
    expect(checkRequestShape('HEAD', '/.well-known/agent-skills/pdf/scripts/a.py')).toEqual({ ok: true });
    expect(checkRequestShape('POST', '/.well-known/agent-skills/index.json')).toMatchObject({ status: 405 });
  });
});
