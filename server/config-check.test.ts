import { describe, expect, it } from 'vitest';
import { ConfigError } from './config';
import { refuseInvalidConfig } from './config-check';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

describe('refuseInvalidConfig', () => {
  const exit = (code: number): never => {
    throw new Exit(code);
  };

  it('stops with status 1 and says what is wrong in a config file', () => {
    const lines: string[] = [];
    const run = () =>
      refuseInvalidConfig(
        () => {
          throw new ConfigError('skillchat.config.json: (root): Unrecognized key: "nonsense"');
        },
        exit,
        (line) => lines.push(line),
      );
    expect(run).toThrow(new Exit(1));
    expect(lines[0]).toBe(
      'skillchat: configuration error: skillchat.config.json: (root): Unrecognized key: "nonsense"',
    );
  });

  it('lets a valid configuration through and does not swallow other errors', () => {
    expect(() => refuseInvalidConfig(() => ({}), exit)).not.toThrow();
    expect(() =>
      refuseInvalidConfig(() => {
        throw new TypeError('a bug');
      }, exit),
    ).toThrow(TypeError);
  });
});
