import { describe, expect, it } from 'vitest';
import { parseGrade, rubricPrompt } from './grade';

describe('parseGrade', () => {
  it('reads a PASS with its reason', () => {
    expect(parseGrade('VERDICT: PASS\nREASON: the letter is converted.')).toEqual({
      verdict: 'pass',
      reason: 'the letter is converted.',
    });
  });

  it('reads a FAIL wrapped in markdown after a preamble', () => {
    const reply = 'Let me look at the answer.\n\n**Verdict:** **FAIL**\n**Reason:** no PDF was made';
    expect(parseGrade(reply)).toEqual({ verdict: 'fail', reason: 'no PDF was made' });
  });

  it('reads a bare leading word', () => {
    expect(parseGrade('FAIL - the total is wrong')).toEqual({ verdict: 'fail', reason: 'the total is wrong' });
  });

  it('takes the last verdict line when the grader corrects itself', () => {
    expect(parseGrade('VERDICT: PASS\nWait, the file is empty.\nVERDICT: FAIL\nREASON: empty').verdict).toBe('fail');
  });

  it('gives no grade for junk, or for both words without a verdict line', () => {
    expect(parseGrade('I think this looks fine overall.').verdict).toBeNull();
    expect(parseGrade('I think this looks fine overall.').reason).toMatch(/no PASS or FAIL/);
    expect(parseGrade('Some tests PASS, others FAIL.').verdict).toBeNull();
    expect(parseGrade('').verdict).toBeNull();
  });
});

describe('rubricPrompt', () => {
  it('asks for the two lines and carries the rubric and the answer', () => {
    const text = rubricPrompt({ rubric: 'mentions the total', prompt: 'sum it', answer: 'total 4', files: ['a.csv'] });
    expect(text).toContain('<rubric>\nmentions the total\n</rubric>');
    expect(text).toContain('<answer>\ntotal 4\n</answer>');
    expect(text).toContain('VERDICT: PASS or VERDICT: FAIL');
  });
});
