/**
 * The Log out button in the server's HTML: disabled, since a click before React hydrates it does nothing (the person
 * would stay signed in). The e2e tests (`accounts.spec.ts`, `sign-in-limits.spec.ts`) click it once it is enabled.
 */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LogoutButton } from './logout-button';

describe('LogoutButton', () => {
  it('is disabled in the server-rendered HTML, before its click handler exists', () => {
    const html = renderToString(createElement(LogoutButton));
    expect(html).toContain('data-testid="logout"');
    expect(html).toMatch(/<button[^>]*\sdisabled=""/);
  });
});
