// A jest reporter that prints, after jest's summary, how long each test tier (jest project, see
// jest.config.js) took: from its first file's start to its last file's end. Files of every tier share
// the workers, so the spans overlap; "files" sums each file's own time. Jest prints its summary after
// every reporter, so the lines are written as the process exits (to the descriptor, as the closing
// line is), before the closing line (scripts/jest-closing-line.js), which stays the last line of
// standard output.
const fs = require('node:fs');

function duration(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

class TierTimesReporter {
  onRunComplete(_contexts, results) {
    const tiers = new Map();
    for (const file of results.testResults) {
      const name = file.displayName?.name ?? 'default';
      const tier = tiers.get(name) ?? { files: 0, tests: 0, start: Infinity, end: 0, busy: 0 };
      tier.files += 1;
      tier.tests += file.numPassingTests + file.numFailingTests + file.numPendingTests + file.numTodoTests;
      if (file.perfStats.start && file.perfStats.end) {
        tier.start = Math.min(tier.start, file.perfStats.start);
        tier.end = Math.max(tier.end, file.perfStats.end);
        tier.busy += file.perfStats.end - file.perfStats.start;
      }
      tiers.set(name, tier);
    }
    // In the order the tiers started.
    const ran = [...tiers].sort(([, a], [, b]) => a.start - b.start);
    if (ran.length === 0) return;
    const lines = ['Tiers (first file to last; the tiers run side by side):'];
    for (const [name, t] of ran) {
      const span = t.end > t.start ? duration(t.end - t.start) : '-';
      lines.push(
        `  ${name.padEnd(12)} ${String(t.files).padStart(3)} files ${String(t.tests).padStart(5)} tests  ` +
          `${span.padStart(11)}  (files ${duration(t.busy)})`,
      );
    }
    process.once('exit', () => fs.writeSync(2, `${lines.join('\n')}\n`));
  }
}

module.exports = TierTimesReporter;
