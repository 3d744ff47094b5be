// A jest reporter: writes the run's totals to $COUNTERSIGN_TEST_SUMMARY (JSON), so CI can add up the runs of the
// README's test command and the other Node versions into its one `N passed, N failed` line.
const { writeFileSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.COUNTERSIGN_TEST_SUMMARY;
    if (!file) return;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    writeFileSync(file, JSON.stringify({ passed: results.numPassedTests, failed, suites: results.numTotalTestSuites }));
  }
}

module.exports = SummaryReporter;
