// A jest reporter: writes the run's totals to $COUNTERSIGN_TEST_SUMMARY (JSON), so CI can add up the runs of the
// README's test command and the other Node versions into its one `N passed, N failed` line. It also prints the
// slowest suites, so a change that makes the suite slow to live with shows in every run.
const { relative } = require('node:path');
const { writeFileSync } = require('node:fs');

const SLOWEST = 5;

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const times = results.testResults
      .map((r) => ({
        suite: relative(process.cwd(), r.testFilePath),
        seconds: Math.round((r.perfStats.end - r.perfStats.start) / 100) / 10,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    const wall = Math.round((Date.now() - results.startTime) / 1000);
    if (times.length > SLOWEST)
      console.log(
        `jest: ${wall} s; slowest: ${times
          .slice(0, SLOWEST)
          .map((t) => `${t.suite} ${t.seconds} s`)
          .join(', ')}`,
      );
    const file = process.env.COUNTERSIGN_TEST_SUMMARY;
    if (!file) return;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    writeFileSync(
      file,
      JSON.stringify({
        passed: results.numPassedTests,
        failed,
        suites: results.numTotalTestSuites,
        seconds: wall,
        times,
      }),
    );
  }
}

module.exports = SummaryReporter;
