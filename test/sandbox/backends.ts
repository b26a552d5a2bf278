/**
 * The sandbox suites run once per backend: the configured one (bubblewrap) and bubblewrap through the piped port
 * (piped-bwrap.ts). Same cases, same expectations: what passes through both is what the port promises.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { replaceSandboxBackend } from '../../server/sandbox/select';
import { PIPED_BACKEND, type PipedBackends, startPipedBwrap } from './piped-bwrap';

export const BACKENDS_UNDER_TEST = ['bwrap', PIPED_BACKEND] as const;

/** `body` as one describe block per backend, named `title [backend]`; all skipped when `skip`. */
export function forEachBackend(title: string, body: (backend: string) => void, skip = false): void {
  for (const backend of BACKENDS_UNDER_TEST) {
    (skip ? describe.skip : describe)(`${title} [${backend}]`, () => {
      let piped: PipedBackends | null = null;
      beforeAll(() => {
        if (backend !== PIPED_BACKEND) return;
        piped = startPipedBwrap();
        replaceSandboxBackend(piped.make);
      });
      afterAll(() => {
        replaceSandboxBackend(null);
        piped?.close();
      });
      body(backend);
    });
  }
}

/**
 * Inside a `forEachBackend` body: this backend's runs get workspaces of their own (`<root>/workspaces/<backend>`), so
 * a chat's files from one backend's run are not the other's. Getters, because suites set both up in `beforeAll`.
 */
export function ownWorkspaces(
  backend: string,
  settings: () => { workspace: { dir: string } },
  root: () => string,
): void {
  beforeAll(() => {
    settings().workspace.dir = path.join(root(), 'workspaces', backend);
  });
}
