import fs from 'node:fs';

/** Reads exactly `length` bytes at `position` (fewer only at end of file). */
export function readAt(fd: number, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  return new Promise((resolve, reject) => {
    fs.read(fd, buffer, 0, length, position, (err, bytesRead) => {
      if (err) reject(err);
      else resolve(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
    });
  });
}

export function readAtSync(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  const n = fs.readSync(fd, buffer, 0, length, position);
  return n === length ? buffer : buffer.subarray(0, n);
}

export function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/** Writes the whole buffer at `position` (pwrite), looping over short writes. */
export function writeAllSync(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done, position + done);
}

/** Makes a directory entry (a new file or a rename) durable. */
export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces a small file atomically and durably: write a temporary file, fsync it, rename, fsync the dir. */
export function writeFileDurable(file: string, data: string | Buffer, dir: string): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    writeAllSync(fd, typeof data === 'string' ? Buffer.from(data) : data, 0);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(dir);
}
