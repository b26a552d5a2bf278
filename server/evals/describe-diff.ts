/** A word diff of two descriptions (longest common subsequence over words): what a proposal changes, shown inline. */

export interface WordChange {
  op: 'same' | 'del' | 'ins';
  text: string;
}

/** Descriptions are at most 1024 characters, so the quadratic table stays small (a few hundred words a side). */
export function diffWords(before: string, after: string): WordChange[] {
  const a = before.split(/(?<=\s)(?=\S)/);
  const b = after.split(/(?<=\s)(?=\S)/);
  const key = (w: string) => w.trim();
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = key(a[i]!) === key(b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: WordChange[] = [];
  const push = (op: WordChange['op'], text: string) => {
    const last = out.at(-1);
    if (last?.op === op) last.text += text;
    else out.push({ op, text });
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (key(a[i]!) === key(b[j]!)) {
      push('same', b[j]!);
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) push('del', a[i++]!);
    else push('ins', b[j++]!);
  }
  while (i < a.length) push('del', a[i++]!);
  while (j < b.length) push('ins', b[j++]!);
  return out;
}
