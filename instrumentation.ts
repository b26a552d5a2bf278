/**
 * Runs once per server start, before requests: opens the database (applying migrations and marking answers left
 * streaming by a crash as interrupted), installs the graceful shutdown, and schedules the first skill scan, whose problems show up in the server log
 * when it ends (without holding the first page).
 */
/** Long enough for `next start` to serve its first page, short enough that skills are ready when a person looks. */
const FIRST_SCAN_DELAY_MS = 2000;

export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Before anything else: TRACE/TRACK requests otherwise end in a bare 500 inside Next (see methods.ts).
  const { installMethodGuard } = await import('./server/security/methods');
  installMethodGuard();
  // An invalid skillchat.config.json stops the server, however it was started (`npm start` checks it too): without
  // its configuration the server cannot decide who may connect (hosts, exposure) or where data lives, and a process
  // that keeps its port open while answering every request with an error looks up to a supervisor.
  const { refuseInvalidConfig } = await import('./server/config-check');
  refuseInvalidConfig();
  const { getApp } = await import('./server/app');
  const { getOpenReport } = await import('./server/db');
  // Opens the database (SQLite file, or PostgreSQL with DATABASE_URL: migrations under an advisory lock) and starts
  // the app's background work: MCP connections, and the running-turn leases shared by instances (the sweep for
  // answers of crashed instances and, on PostgreSQL, the LISTEN connection for a Stop pressed on another instance).
  const app = await getApp();
  // SIGTERM/SIGINT: running answers get a bounded grace, then are stored as interrupted; then what the app started
  // is closed (server/shutdown.ts).
  const { installGracefulShutdown } = await import('./server/shutdown');
  installGracefulShutdown({
    graceMs: app.config.server.shutdownGraceMs,
    turns: app.turns,
    close: () => app.close({ keepDatabase: true }),
  });
  const report = app.db.native.dialect === 'sqlite' ? getOpenReport(app.db.native.db) : undefined;
  if (report?.interruptedMessages) {
    console.log(`[skillchat] marked ${report.interruptedMessages} unfinished answers as interrupted`);
  }
  // An exposed server signs people in: with no admin yet, print a one-time setup token for /setup.
  if (app.exposure.exposed) {
    const { announceSetup } = await import('./server/auth/announce');
    await announceSetup(app.auth).catch((error: unknown) => console.error('[skillchat] account setup failed', error));
  }
  // The first scan is not awaited here: with 10,000 skills it takes a second or more, and awaiting it would hold every
  // request, the first page included. Nor does it start at once: its synchronous reads share the one thread with the
  // server's start-up and would slow the first page anyway. It starts FIRST_SCAN_DELAY_MS after start-up, or earlier
  // when a request needs skills (the registry scans on first use and later callers share that scan).
  const firstScan = () =>
    app.registry.current().then(
      async (result) => {
        const { skills, diagnostics, durationMs } = result;
        const { watchEnabled } = await import('./server/skills/registry');
        // Live reload: new, edited and removed skills reach the catalog, the slash menu and /admin without a restart.
        if (watchEnabled(app.config)) {
          app.registry
            .startWatching()
            .catch((error: unknown) => console.error('[skillchat] skill watcher failed', error));
        }
        const { isProblem } = await import('./server/skills/load/diagnostics');
        const problems = diagnostics.filter(isProblem).length;
        console.log(
          `[skillchat] ${skills.length} skills (${problems} problems) scanned in ${Math.round(durationMs)} ms; default model: ${app.models.defaultEntry().label}`,
        );
        const { undecidedShadowing } = await import('./server/skills/discovery/collisions');
        for (const line of undecidedShadowing(result)) console.log(`[skillchat] ${line}`);
      },
      (error: unknown) => console.error('[skillchat] first skill scan failed', error),
    );
  setTimeout(firstScan, FIRST_SCAN_DELAY_MS).unref();
}
