/**
 * Runs once per server start, before requests: opens the database (applying migrations and marking answers left
 * streaming by a crash as interrupted) and runs the first skill scan, so problems show up in the server log at once.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getApp } = await import('./server/app');
  const { getOpenReport } = await import('./server/db');
  const app = getApp();
  const report = getOpenReport(app.db);
  if (report?.interruptedMessages) {
    console.log(`[skillchat] marked ${report.interruptedMessages} unfinished answers as interrupted`);
  }
  const { skills, diagnostics, durationMs } = await app.registry.current();
  const { watchEnabled } = await import('./server/skills/registry');
  const { isProblem } = await import('./server/skills/diagnostics');
  // Live reload: new, edited and removed skills reach the catalog, the slash menu and /admin without a restart.
  if (watchEnabled(app.config)) {
    app.registry.startWatching().catch((error: unknown) => console.error('[skillchat] skill watcher failed', error));
  }
  const problems = diagnostics.filter(isProblem).length;
  console.log(
    `[skillchat] ${skills.length} skills (${problems} problems) scanned in ${Math.round(durationMs)} ms; model: ${app.model.label}`,
  );
}
