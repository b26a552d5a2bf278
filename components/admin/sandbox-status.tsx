/** /admin: the script sandbox (backend and why, limits) and the skills runtime (versions, packages). */
import type { SandboxStatus } from '@/server/sandbox/status';

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

export function SandboxStatusCard({ status, showPaths }: { status: SandboxStatus; showPaths: boolean }) {
  const { limits, runtime } = status;
  return (
    <section className="card" id="sandbox" aria-labelledby="sandbox-h">
      <h2 id="sandbox-h">Script sandbox</h2>
      <p data-testid="sandbox-backend" data-backend={status.backend ?? 'none'}>
        {status.backend ? (
          <span className="pill pill--ok">{status.backend}</span>
        ) : (
          <span className="pill pill--missing">no sandbox: scripts cannot run</span>
        )}{' '}
        <span className="muted small">{status.reason}</span>
      </p>
      <p className="muted small" data-testid="sandbox-limits">
        Limits per run: {Math.round(limits.timeoutMs / 1000)} s wall, {limits.cpuSeconds} s CPU, {limits.memoryMb} MB
        memory, {limits.maxProcesses} processes, {Math.round(limits.maxOutputBytes / 1024)} KB output, workspace{' '}
        {mb(limits.maxWorkspaceBytes)}, /tmp {limits.tmpMb} MB. No network; the environment is built from scratch.
      </p>
      <h3>Runtime</h3>
      {runtime.installed ? (
        <div data-testid="sandbox-runtime">
          <p className="muted small">
            {runtime.python.version ?? 'Python'} and Node {runtime.node.version}, mounted read-only
            {showPaths ? (
              <>
                {' '}
                from <code className="path">{runtime.dir}</code>
              </>
            ) : null}
            .
          </p>
          <p className="small">
            Python: {runtime.python.packages.map((p) => `${p.name} ${p.version}`).join(', ') || 'none'}
          </p>
          <p className="small">
            Node: {runtime.node.packages.map((p) => `${p.name} ${p.version}`).join(', ') || 'none'}
          </p>
        </div>
      ) : (
        <p className="muted small" data-testid="sandbox-runtime">
          Not installed: run <code>bin/skills runtime install</code>. Scripts get the system Python and Node only.
        </p>
      )}
    </section>
  );
}
