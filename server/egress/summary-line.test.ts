import { describe, expect, it } from 'vitest';
import { formatBytes, summaryLineText } from './summary-line';

describe('a summary line in words', () => {
  it('an allowed host:port with its requests and bytes', () => {
    expect(
      summaryLineText({ host: 'api.github.com', port: 443, allowed: true, requests: 3, bytesIn: 12000, bytesOut: 288 }),
    ).toBe('api.github.com:443 · 3 requests · 12 KB');
    expect(summaryLineText({ host: '::1', port: 8080, allowed: true, requests: 1, bytesIn: 10, bytesOut: 5 })).toBe(
      '[::1]:8080 · 1 request · 15 B',
    );
  });

  it('a refusal with its reason, without repeating the target', () => {
    expect(
      summaryLineText({
        host: 'example.com',
        port: 443,
        allowed: false,
        requests: 1,
        bytesIn: 0,
        bytesOut: 0,
        reason: 'example.com:443 is not granted to github-issues.',
      }),
    ).toBe('example.com:443 · refused: not granted to github-issues');
    expect(
      summaryLineText({
        host: 'a.test',
        port: 443,
        allowed: false,
        requests: 1,
        bytesIn: 0,
        bytesOut: 0,
        reason: 'GITHUB_TOKEN is not set.',
      }),
    ).toBe('a.test:443 · refused: GITHUB_TOKEN is not set');
  });

  it('bytes', () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1024), formatBytes(5 * 1024 * 1024 + 1)]).toEqual([
      '0 B',
      '1023 B',
      '1 KB',
      '5.0 MB',
    ]);
  });
});
