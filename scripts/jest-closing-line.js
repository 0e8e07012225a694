const fs = require('node:fs');

// A jest reporter that ends the run's output with one plain line any CI can read:
// "Tests: <n> passed, <n> failed, <n> skipped" (skipped counts pending and todo tests too; a test
// file that could not run counts as one failure, and so does a run that fails after its tests, as
// when the global teardown finds "[object Object]" in a history). Jest prints its own summary after
// every reporter, so the line is written as the process exits; it goes to standard output, which
// jest leaves to the tests, since a reader of that stream alone would otherwise see no count. It is
// written to the descriptor: a run that fails after its tests silences process.stdout before it exits.
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.once('exit', (code) => {
      const line = `Tests: ${results.numPassedTests} passed, ${failed === 0 && code !== 0 ? 1 : failed} failed, ${skipped} skipped`;
      fs.writeSync(1, `\n${line}\n`);
    });
  }
}

module.exports = ClosingLineReporter;
