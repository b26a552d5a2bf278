/**
 * The one order of skill names, for every list (the walk, collisions, the catalog, the matcher): below the rooms
 * that sort, so discovery does not reach into the catalog for it.
 */
/** Code-point order (not UTF-16 code-unit order, which misplaces astral characters): one order for every list. */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  // Code units compare as code points up to the first difference, unless that is in a surrogate pair: the common
  // case without iterating (sorting thousands of matches compares names thousands of times).
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length < b.length ? -1 : 1;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if ((ca < 0xd800 || ca > 0xdfff) && (cb < 0xd800 || cb > 0xdfff)) return ca < cb ? -1 : 1;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const d = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}
