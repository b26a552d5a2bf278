/**
 * Runs once per server start, before requests: opens the database (applying migrations and marking answers left
 * streaming by a crash as interrupted) and starts the first skill scan, whose problems show up in the server log as
 * soon as it ends (without holding the first page).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getApp } = await import('./server/app');
  const { getDb, getOpenReport } = await import('./server/db');
  const app = getApp();
  const report = getOpenReport(getDb(app.config.databasePath));
  if (report?.interruptedMessages) {
    console.log(`[skillchat] marked ${report.interruptedMessages} unfinished answers as interrupted`);
  }
  // The first scan runs in the background: with 10,000 skills it takes about a second, and awaiting it here would
  // hold every request, the first page included, until it ends. Requests that need skills share the scan in flight.
  void app.registry.current().then(
    async ({ skills, diagnostics, durationMs }) => {
      const { watchEnabled } = await import('./server/skills/registry');
      // Live reload: new, edited and removed skills reach the catalog, the slash menu and /admin without a restart.
      if (watchEnabled(app.config)) {
        app.registry
          .startWatching()
          .catch((error: unknown) => console.error('[skillchat] skill watcher failed', error));
      }
      const problems = diagnostics.filter((d) => d.severity !== 'info').length;
      console.log(
        `[skillchat] ${skills.length} skills (${problems} problems) scanned in ${Math.round(durationMs)} ms; model: ${app.model.label}`,
      );
    },
    (error: unknown) => console.error('[skillchat] first skill scan failed', error),
  );
}
