/** Processes on this machine, for tests that check nothing they started is left behind. */
import fs from 'node:fs';

/** How many processes have `mark` in their arguments. */
export function processesWith(mark: string): number {
  return fs
    .readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark);
      } catch {
        return false;
      }
    }).length;
}
