'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { stripVTControlCharacters: plain } = require('node:util');

/** Lines of a failure message kept in the closing summary, and characters per line. */
const MESSAGE_LINES = 12;
const LINE_CHARS = 240;
/** Failed tests described; the rest are counted. */
const FAILURES_SHOWN = 20;
/** Lines of an uncaught error's stack printed before the summary. */
const STACK_LINES = 8;

/**
 * Prints the run's closing lines in the plain form CI reads: each failed test with the start of its message, then
 * "Tests: N passed, N failed, N skipped". They are written as the process exits, after everything jest prints, so
 * that a CI log cut down to its head and tail still says what failed.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.failed = [];
    /** The closing `Tests:` line, once jest has finished the run. */
    this.totals = undefined;
    // jest catches what a suite throws while it runs; an error outside every suite (a client left open when global
    // teardown stops PostgreSQL, say) would end the process without 'exit' handlers, so without the summary.
    process.on('uncaughtException', (error) => {
      const stack = String(error?.stack ?? error)
        .split('\n')
        .slice(0, STACK_LINES);
      fs.writeSync(2, `\nan error outside any test ended the run:\n${stack.join('\n')}\n`);
      process.exit(1);
    });
    // --forceExit ends the process right after the reporters; the exit handler still runs, synchronously.
    process.once('exit', () => {
      const totals = this.totals ?? `Tests: the run ended before jest finished; ${this.failed.length} failed by then`;
      fs.writeSync(1, summary(this.failed, totals));
    });
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
    this.totals = `Tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`;
  }
}

function summary(failed, totals) {
  const more = failed.length - FAILURES_SHOWN;
  return ['', ...failed.slice(0, FAILURES_SHOWN).flatMap(describeFailure), ...(more > 0 ? [`and ${more} more failed tests`] : []), totals, ''].join('\n');
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
