import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectionCapWithin, openFilesLimit } from '../../../src/system/open-files-limit';

describe('open-files limit', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'limits-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const limitsFile = (openFiles: string): string => {
    const file = path.join(dir, `limits-${openFiles}`);
    writeFileSync(
      file,
      `Limit                     Soft Limit           Hard Limit           Units\nMax processes             96365                96365                processes\nMax open files            ${openFiles}                20000                files\n`,
    );
    return file;
  };

  test('reads the soft limit of open files from a limits file; unlimited or missing is unknown', () => {
    expect(openFilesLimit(limitsFile('1024'))).toBe(1024);
    expect(openFilesLimit(limitsFile('unlimited'))).toBeUndefined();
    expect(openFilesLimit(path.join(dir, 'absent'))).toBeUndefined();
  });

  test('this process has a limit on Linux', () => {
    if (process.platform === 'linux') expect(openFilesLimit()).toBeGreaterThan(0);
  });

  test('a connection cap never exceeds half the limit, and keeps the configured cap below that', () => {
    expect(connectionCapWithin(1000, 1024)).toBe(512);
    expect(connectionCapWithin(1000, 20000)).toBe(1000);
    expect(connectionCapWithin(1000, undefined)).toBe(1000);
    expect(connectionCapWithin(1000, 1)).toBe(1);
  });
});
