/**
 * Script arguments as a run accepts them, checked once before any backend sees them: an array of strings, bounded
 * in count and bytes, with no NUL (a real argv cannot hold one, and a backend that sends argv over an API need not
 * escape one).
 */
export const MAX_ARGS = 1_000;
export const MAX_ARGS_BYTES = 128 * 1024;

/** Why these arguments cannot be passed to a script, or null when they can. */
export function argsProblem(args: unknown): string | null {
  if (!Array.isArray(args)) return 'args must be an array of strings';
  if (args.length > MAX_ARGS) return `at most ${MAX_ARGS} arguments are allowed`;
  let bytes = 0;
  for (const arg of args) {
    if (typeof arg !== 'string') return 'every argument must be a string';
    if (arg.includes('\0')) return 'arguments cannot contain NUL characters';
    bytes += Buffer.byteLength(arg, 'utf8');
  }
  return bytes > MAX_ARGS_BYTES ? `the arguments are longer than ${MAX_ARGS_BYTES} bytes in total` : null;
}
