// A jest reporter that ends the run's output with one plain line any CI can read:
// "Tests: <n> passed, <n> failed, <n> skipped" (skipped counts pending and todo tests too; a test
// file that could not run counts as one failure). Jest prints its own summary after every
// reporter, so the line is written as the process exits; it goes to standard output, which jest
// leaves to the tests, since a reader of that stream alone would otherwise see no count.
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `Tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}

module.exports = ClosingLineReporter;
