/** The name a misspelt one most likely meant: for "did you mean …?" in a refusal. Pure: workflow code may use it. */

/** Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/**
 * The one of `names` closest to `given`, when it is close enough to be a slip (at most a third of its
 * letters off, and at least one letter right); undefined when none is, or `given` is one of them.
 */
export function closestName(given: string, names: readonly string[]): string | undefined {
  if (names.includes(given)) return undefined;
  const lower = given.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean "name"?)`, or nothing when no name of `names` is close to `given`. */
export function didYouMean(given: string, names: readonly string[]): string {
  const name = closestName(given, names);
  return name === undefined ? '' : ` (did you mean "${name}"?)`;
}
