/**
 * The line format of the broker's own journals (committed offsets, transactions): `<crc32c hex> <json>\n`, appended
 * and fsynced by their owners. A torn or corrupt line ends a replay there: nothing after it was acknowledged.
 */
import fs from 'node:fs';
import { crc32c } from '../protocol/crc32c';
import { writeFileDurable } from './fs-util';

/** One journal line holding `record`. */
export function journalLine(record: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(record), 'utf8');
  return Buffer.concat([Buffer.from(`${crc32c(json).toString(16).padStart(8, '0')} `, 'latin1'), json, Buffer.from('\n')]);
}

/** Applies each intact line of the journal file in order; answers the bytes they span and how many there were. */
export function replayJournal<R>(file: string, apply: (record: R) => void): { validBytes: number; lines: number } {
  if (!fs.existsSync(file)) return { validBytes: 0, lines: 0 };
  const data = fs.readFileSync(file);
  let at = 0;
  let lines = 0;
  while (at < data.length) {
    const nl = data.indexOf(0x0a, at);
    if (nl < 0 || nl - at < 10 || data[at + 8] !== 0x20) break;
    const crc = parseInt(data.subarray(at, at + 8).toString('latin1'), 16);
    if (crc !== crc32c(data, at + 9, nl)) break;
    let record: R;
    try {
      record = JSON.parse(data.subarray(at + 9, nl).toString('utf8')) as R;
    } catch {
      break;
    }
    apply(record);
    lines++;
    at = nl + 1;
  }
  return { validBytes: at, lines };
}

/** Replaces the journal `file` with `lines`, durably, closing `fd`; answers the new descriptor and the file's size. */
export function rewriteJournal(file: string, dir: string, fd: number, lines: readonly Buffer[]): { fd: number; size: number } {
  const data = Buffer.concat(lines);
  fs.closeSync(fd);
  writeFileDurable(file, data, dir);
  return { fd: fs.openSync(file, fs.constants.O_RDWR), size: data.length };
}

/** Lines below which a journal is never compacted. */
const COMPACT_MIN_LINES = 1000;
/** A journal is rewritten with its live state once it holds more than this many lines per live entry. */
const LINES_PER_LIVE_ENTRY = 4;

/**
 * When a journal is rewritten with its live state (`rewriteJournal`): once it holds more than COMPACT_MIN_LINES lines
 * and most of them are superseded, more than four per live entry, as Kafka's log cleaner keeps its internal topics
 * compacted. Counting the live entries may cost a walk of them (the committed offsets), so they are counted again
 * only once the lines have passed what the last count allowed.
 */
export class JournalCompaction {
  private countAt = COMPACT_MIN_LINES;

  /** Whether a journal of `lines` lines is due, where `liveEntries` counts what a rewrite would keep. */
  due(lines: number, liveEntries: () => number): boolean {
    if (lines <= this.countAt) return false;
    const live = liveEntries();
    this.countAt = Math.max(COMPACT_MIN_LINES, LINES_PER_LIVE_ENTRY * live);
    return lines > LINES_PER_LIVE_ENTRY * live;
  }
}
