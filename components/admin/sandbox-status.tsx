/**
 * /admin: the script sandbox (backend and why, limits), the skills runtime (versions, packages, what the index
 * lacked), the system programs scripts call and the seccomp filter.
 */
import type { SandboxStatus } from '@/server/sandbox/status';

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

export function SandboxStatusCard({ status, showPaths }: { status: SandboxStatus; showPaths: boolean }) {
  const { limits, runtime } = status;
  return (
    <section className="card" id="sandbox" aria-labelledby="sandbox-h">
      <h2 id="sandbox-h">Sandbox</h2>
      <p data-testid="sandbox-backend" data-backend={status.backend ?? 'none'}>
        {status.backend ? (
          <span className="pill pill--ok">{status.backend}</span>
        ) : (
          <span className="pill pill--missing">no sandbox: scripts cannot run</span>
        )}{' '}
        <span className="muted small">{status.reason}</span>
      </p>
      <p className="muted small" data-testid="sandbox-runs">
        Runs at once: {status.runs.maxConcurrent} ({status.runs.running} running, {status.runs.waiting} waiting; more
        wait their turn, fairly between people).{' '}
        {status.runs.perRunUid
          ? `Each run has its own uid (${status.runs.uids}), so one chat's processes cannot use up another's.`
          : "Runs share the server user's process budget (run the server as root for a uid per run)."}
      </p>
      <p className="muted small" data-testid="sandbox-office" data-running={status.office.running}>
        {status.office.max > 0
          ? `LibreOffice kept running for a chat's later conversions: ${status.office.running} of at most ${status.office.max} now${status.runs.perRunUid ? ` (uids ${status.office.uids})` : ''}, each ending after ${status.office.idleSeconds} s without a run in its chat; ${status.office.conversions} conversions done by them, ${status.office.fallbacks} left to soffice in the run.`
          : 'LibreOffice is started in every run that converts (sandbox.officeHosts is 0).'}
      </p>
      <p className="small" data-testid="sandbox-shell" data-mode={status.shell.mode}>
        Model's shell (<code>sandbox_exec</code>): <strong>{status.shell.mode}</strong>{' '}
        <span className="muted">
          {status.shell.source === 'default'
            ? `(default for ${status.shell.mode === 'ask' ? 'an exposed' : 'a loopback'} server; set shell.mode or SKILLCHAT_SHELL)`
            : '(shell.mode in the configuration)'}
        </span>
        {Object.keys(status.shell.people).length > 0 ? (
          <span data-testid="sandbox-shell-people">
            {' '}
            Per person:{' '}
            {Object.entries(status.shell.people)
              .map(([email, mode]) => `${email} ${mode}`)
              .join(', ')}
            .
          </span>
        ) : null}
      </p>
      <p className="muted small" data-testid="sandbox-limits">
        Limits per run: {Math.round(limits.timeoutMs / 1000)} s wall, {limits.cpuSeconds} s CPU, {limits.memoryMb} MB
        memory, {limits.maxProcesses} processes, {Math.round(limits.maxOutputBytes / 1024)} KB output, workspace{' '}
        {mb(limits.maxWorkspaceBytes)}, /tmp {limits.tmpMb} MB. No network; the environment is built from scratch.
      </p>
      {status.enforcement ? (
        <ul className="muted small" data-testid="sandbox-enforcement">
          <li data-testid="sandbox-enforcement-memory">Memory: {status.enforcement.memory}.</li>
          <li data-testid="sandbox-enforcement-processes">Processes: {status.enforcement.processes}.</li>
        </ul>
      ) : null}
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
          {[...runtime.python.failed, ...runtime.node.failed].map((f) => (
            <p key={f.name} className="small" data-testid="runtime-failed">
              <span className="pill pill--missing">{f.name} not installed</span> <span className="muted">{f.why}</span>
            </p>
          ))}
        </div>
      ) : (
        <p className="muted small" data-testid="sandbox-runtime">
          Not installed: run <code>bin/skills runtime install</code>. Scripts get the system Python and Node only.
        </p>
      )}
      <h3>System programs</h3>
      <ul className="small" data-testid="runtime-system">
        {runtime.system.map((t) => (
          <li key={t.id} data-tool={t.id} data-found={t.found && !t.problem ? 'yes' : 'no'}>
            {t.found && !t.problem ? (
              <span className="pill pill--ok">{t.label}</span>
            ) : (
              <span className="pill pill--missing">
                {t.label} {t.found ? 'too old' : 'missing'}
              </span>
            )}{' '}
            {t.version ? `${t.version} ` : ''}
            <span className="muted">{t.problem ?? t.purpose}</span>
            {t.found && !t.problem ? null : (
              <>
                {' '}
                Install: <code>bin/skills runtime install</code> as root, or <code>{t.install}</code>
              </>
            )}
          </li>
        ))}
      </ul>
      <h3>Seccomp filter</h3>
      <p className="small" data-testid="runtime-seccomp">
        {runtime.seccomp.path !== null ? (
          <span className="pill pill--ok">built</span>
        ) : (
          <span className="pill pill--missing">none: {runtime.seccomp.reason}</span>
        )}{' '}
        <span className="muted">Denied (EPERM): {status.seccompDenied.join(', ')}.</span>
      </p>
    </section>
  );
}
