import { describe, expect, it } from 'vitest';
import { coveredByPrefixes, simpleCommands } from './shell-grants';
import { standingPrefix } from './shell-prefix';

describe('standingPrefix', () => {
  it('offers the program, its script or its subcommand; nothing for an interpreter alone or several lines', () => {
    expect(standingPrefix('soffice --headless --convert-to pdf letter.docx')).toBe('soffice');
    expect(standingPrefix('python3 /skills/xlsx/scripts/recalc.py book.xlsx')).toBe(
      'python3 /skills/xlsx/scripts/recalc.py',
    );
    expect(standingPrefix('npm run build')).toBe('npm run');
    expect(standingPrefix('git status')).toBe('git status');
    expect(standingPrefix('/usr/bin/git log -1')).toBe('/usr/bin/git log');
    expect(standingPrefix('make')).toBe('make');
    expect(standingPrefix('python3 -c "import os"')).toBeNull();
    expect(standingPrefix('bash')).toBeNull();
    expect(standingPrefix('node -e 1')).toBeNull();
    expect(standingPrefix('env FOO=1 rm -rf x')).toBeNull();
    expect(standingPrefix('xargs rm')).toBeNull();
    expect(standingPrefix('cat <<EOF\nx\nEOF')).toBeNull();
    expect(standingPrefix('$(id)')).toBeNull();
    expect(standingPrefix('"quoted" x')).toBeNull();
  });
});

describe('coveredByPrefixes', () => {
  it('covers a command whose every simple command starts with a granted prefix', () => {
    const granted = ['soffice', 'python3 /skills/xlsx/scripts/recalc.py'];
    expect(coveredByPrefixes('soffice --headless --convert-to pdf a.docx', granted)).toBe(true);
    expect(
      coveredByPrefixes('soffice --convert-to pdf a.docx && python3 /skills/xlsx/scripts/recalc.py b', granted),
    ).toBe(true);
    expect(coveredByPrefixes('soffice --version 2>&1 | soffice --help > out.txt', granted)).toBe(true);
    expect(coveredByPrefixes('soffice *.docx # a comment; rm -rf x', granted)).toBe(true);
  });

  it('does not cover anything else: another program, a chained one, a substitution, a heredoc, a subshell', () => {
    const granted = ['soffice', 'npm run'];
    expect(coveredByPrefixes('rm -rf /workspace', granted)).toBe(false);
    expect(coveredByPrefixes('soffice a.docx; rm -rf /workspace', granted)).toBe(false);
    expect(coveredByPrefixes('soffice a.docx || curl x', granted)).toBe(false);
    expect(coveredByPrefixes('soffice $(rm -rf x)', granted)).toBe(false);
    expect(coveredByPrefixes('soffice `rm -rf x`', granted)).toBe(false);
    expect(coveredByPrefixes('soffice <(rm x)', granted)).toBe(false);
    expect(coveredByPrefixes('soffice a\nrm -rf x', granted)).toBe(false);
    expect(coveredByPrefixes('(rm x)', granted)).toBe(false);
    expect(coveredByPrefixes('npm install evil', granted)).toBe(false);
    expect(coveredByPrefixes('npm runx', granted)).toBe(false);
    expect(coveredByPrefixes('sofficex a', granted)).toBe(false);
    expect(coveredByPrefixes('soffice a > ', granted)).toBe(false);
    expect(coveredByPrefixes('soffice a', [])).toBe(false);
    // A variable is not expanded into a granted word.
    expect(coveredByPrefixes('$PROGRAM a', ['soffice'])).toBe(false);
  });

  it('splits as the shell does, quotes included', () => {
    expect(simpleCommands('a "b; c" && d')).toEqual([['a', 'b; c'], ['d']]);
    expect(simpleCommands('')).toBeNull();
  });
});
