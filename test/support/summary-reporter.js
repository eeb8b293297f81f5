'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { stripVTControlCharacters: plain } = require('node:util');

/** Lines of a failure message kept in the closing summary, and characters per line. */
const MESSAGE_LINES = 12;
const LINE_CHARS = 240;
/** Failed tests described; the rest are counted. */
const FAILURES_SHOWN = 20;

/**
 * Prints the run's closing lines in the plain form CI reads: each failed test with the start of its message, then
 * "Tests: N passed, N failed, N skipped". They are written as the process exits, after everything jest prints, so
 * that a CI log cut down to its head and tail still says what failed.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.failed = [];
  }

  onTestResult(_test, result) {
    const file = path.relative(this.rootDir, result.testFilePath);
    if (result.testExecError) this.failed.push({ name: file, message: result.testExecError.message ?? String(result.testExecError) });
    for (const t of result.testResults) {
      if (t.status === 'failed') this.failed.push({ name: [file, ...t.ancestorTitles, t.title].join(' › '), message: t.failureMessages.join('\n') });
    }
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const more = this.failed.length - FAILURES_SHOWN;
    const lines = [
      '',
      ...this.failed.slice(0, FAILURES_SHOWN).flatMap(describeFailure),
      ...(more > 0 ? [`and ${more} more failed tests`] : []),
      `Tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`,
      '',
    ];
    // --forceExit ends the process right after the reporters; the exit handler still runs, synchronously.
    process.once('exit', () => fs.writeSync(1, lines.join('\n')));
  }
}

function describeFailure({ name, message }) {
  const kept = plain(message)
    .split('\n')
    .map((l) => l.trim())
    // Stack frames and the code frame say where; the first lines and the diff say what.
    .filter((l) => l.length > 0 && !l.startsWith('at ') && !/^>?\s*\d+ \|/.test(l) && !/^\|/.test(l))
    .slice(0, MESSAGE_LINES)
    .map((l) => `    ${l.slice(0, LINE_CHARS)}`);
  return [`FAILED ${name}`, ...kept];
}

module.exports = SummaryReporter;
