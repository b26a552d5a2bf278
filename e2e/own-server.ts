/**
 * A `next start` of its own for a spec that needs its own environment (skill roots, config file, database), on its
 * own port, reusing the `.next` build the shared e2e web server made. Only the variables given here reach it: the
 * person's OPENAI_* settings stay out, so the offline model answers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const appDir = path.resolve(import.meta.dirname, '..');

export interface OwnServer {
  port: number;
  origin: string;
  output: () => string;
  stop: () => Promise<void>;
  /** Sends `signal` to the server process; resolves with how it exited. */
  kill: (signal: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A port nothing listens on now (the OS picks it), for specs that must not collide with other checkouts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * `bind` is the `-H` address: 127.0.0.1 (loopback-only, the default) or 0.0.0.0 (exposed: accounts required).
 * Requests still go to 127.0.0.1.
 */
export async function startOwnServer(
  port: number,
  env: Record<string, string>,
  options: { bind?: string } = {},
): Promise<OwnServer> {
  const child: ChildProcess = spawn(
    path.join(appDir, 'node_modules', '.bin', 'next'),
    ['start', '-H', options.bind ?? '127.0.0.1', '-p', String(port)],
    {
      cwd: appDir,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        OPENAI_API_KEY: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (d: Buffer) => {
    output += d.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const kill = (signal: NodeJS.Signals) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return resolve({ code: child.exitCode, signal: child.signalCode });
      }
      child.once('exit', (code, sig) => resolve({ code, signal: sig }));
      child.kill(signal);
    });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output}`);
    const ready = await fetch(`${origin}/api/status`).catch(() => null);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`next start did not answer on ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { port, origin, output: () => output, stop, kill };
}
