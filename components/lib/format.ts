/** Small formatters shared by the chat's tool cards and the admin tables (plain functions: usable on both sides). */

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A script call as a shell would read it: arguments with spaces, quotes or other specials are single-quoted. */
export function commandLine(path: string, args: readonly string[]): string {
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
  return [path, ...args].map(quote).join(' ');
}
