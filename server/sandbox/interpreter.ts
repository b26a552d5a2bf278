/**
 * Which interpreter runs a script: by extension first, then by the shebang line. Only interpreters from this table
 * run, and always by name on the sandbox's PATH (the runtime's venv and node first, then /usr/bin): a shebang
 * naming `/home/me/bin/tool` cannot pick a host binary, which the sandbox could not see anyway.
 */
import path from 'node:path';

export type Interpreter = 'python3' | 'node' | 'bash' | 'sh';

const BY_EXTENSION: Record<string, Interpreter> = {
  '.py': 'python3',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
  '.sh': 'bash',
  '.bash': 'bash',
};

const BY_SHEBANG_NAME: Record<string, Interpreter> = {
  python: 'python3',
  python3: 'python3',
  node: 'node',
  nodejs: 'node',
  bash: 'bash',
  sh: 'sh',
};

export const SCRIPT_EXTENSIONS = Object.keys(BY_EXTENSION);

/** `#!/usr/bin/env -S python3 -u` -> `python3`; `#!/bin/bash -e` -> `bash`. */
export function shebangInterpreter(firstLine: string): Interpreter | undefined {
  if (!firstLine.startsWith('#!')) return undefined;
  const words = firstLine.slice(2).trim().split(/\s+/);
  let program = path.posix.basename(words[0] ?? '');
  if (program === 'env') program = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) ?? '';
  // `python3.11` and friends are still Python 3.
  program = program.replace(/^(python3)(\.\d+)?$/, '$1');
  return Object.hasOwn(BY_SHEBANG_NAME, program) ? BY_SHEBANG_NAME[program] : undefined;
}

export function interpreterFor(relPath: string, head: string): Interpreter | undefined {
  const ext = path.posix.extname(relPath).toLowerCase();
  if (Object.hasOwn(BY_EXTENSION, ext)) return BY_EXTENSION[ext];
  return shebangInterpreter(head.split('\n', 1)[0] ?? '');
}
