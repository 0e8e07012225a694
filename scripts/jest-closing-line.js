const fs = require('node:fs');

// A jest reporter that ends the run's output with one plain line any CI can read:
// "Tests: <n> passed, <n> failed, <n> skipped" (skipped counts pending and todo tests too; a test
// file that could not run counts as one failure, and so does a run that fails after its tests, as
// when the global teardown finds "[object Object]" in a history). Jest prints its own summary after
// every reporter, so the line is written as the process exits; it goes to standard output, which
// jest leaves to the tests, since a reader of that stream alone would otherwise see no count. It is
// written to the descriptor: a run that fails after its tests silences process.stdout before it exits.
// When DURABLE_AGENTS_TEST_TOTALS names a file, the counts are appended to it as one line of three
// numbers instead, for a command of several jest runs that prints one line for all (scripts/test.sh).
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.once('exit', (code) => {
      const counts = [results.numPassedTests, failed === 0 && code !== 0 ? 1 : failed, skipped];
      const totals = process.env.DURABLE_AGENTS_TEST_TOTALS;
      if (totals) fs.appendFileSync(totals, `${counts.join(' ')}\n`);
      else fs.writeSync(1, `\nTests: ${counts[0]} passed, ${counts[1]} failed, ${counts[2]} skipped\n`);
    });
  }
}

module.exports = ClosingLineReporter;
