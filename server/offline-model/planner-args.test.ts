import { describe, expect, it } from 'vitest';
import { argsAfter } from './planner';

describe('argsAfter (offline /skill run scripts/x.py ARG...)', () => {
  it('passes the words after the script path as written, quotes grouping', () => {
    expect(
      argsAfter('run scripts/fill.py form.pdf out.pdf "full_name=Ada Lovelace" \'x=a b\' --flag', 'scripts/fill.py'),
    ).toEqual(['form.pdf', 'out.pdf', 'full_name=Ada Lovelace', 'x=a b', '--flag']);
  });
  it('takes nothing from other lines and nothing when there are no words after the path', () => {
    expect(argsAfter('run scripts/a.sh\nthen tell me more', 'scripts/a.sh')).toEqual([]);
    expect(argsAfter('please run scripts/a.sh $HOME', 'scripts/a.sh')).toEqual(['$HOME']);
  });
});
