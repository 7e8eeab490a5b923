import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config.js';
import { DroppingSink } from '../src/log/log-sink.js';
import { createLogger } from '../src/log/logger.js';
import { promisify } from 'node:util';
import { tempDir } from './support/harness.js';
import { projectRoot } from './support/install.js';
import { within } from './support/wait.js';

const flushed = (logger: Logger) => new Promise<void>((resolve) => logger.flush(() => resolve()));
const mode = async (file: string) => (await stat(file)).mode & 0o777;

function configErrorFor(file: string): ConfigError {
  try {
    createLogger({ level: 'info', file, stderrLevel: 'silent' });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`createLogger accepted ${file}`);
}

describe('the log file', () => {
  it('is created 0600, in folders created 0700, and gets every line', async () => {
    const file = path.join(await tempDir(), 'logs', 'deep', 'server.log');
    const logger = createLogger({ level: 'info', file, stderrLevel: 'silent' });
    logger.info({ n: 1 }, 'first line');
    await flushed(logger);
    expect(await mode(file)).toBe(0o600);
    expect(await mode(path.dirname(file))).toBe(0o700);
    expect(await mode(path.dirname(path.dirname(file)))).toBe(0o700);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ msg: 'first line', n: 1 });
  });

  it('gets the line logged just before the process exits, flushed or not (a fatal error, a second Ctrl-C)', async () => {
    const file = path.join(await tempDir(), 'server.log');
    const module = JSON.stringify(path.join(projectRoot, 'src', 'log', 'logger.ts'));
    const script = [
      `import { createLogger } from ${module};`,
      `createLogger({ level: 'info', file: ${JSON.stringify(file)}, stderrLevel: 'silent' }).fatal('last words');`,
      'process.exit(1);',
    ].join('\n');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot }).catch(
      (error: { code?: number }) => expect(error.code).toBe(1),
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ msg: 'last words' });
  });

  it('is never opened through a symbolic link: one clear error naming PARALLEL_LLM_LOG_FILE, and the target untouched', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'precious.txt');
    await writeFile(target, 'keep me');
    await symlink(target, path.join(dir, 'server.log'));
    expect(configErrorFor(path.join(dir, 'server.log')).message).toMatch(/^PARALLEL_LLM_LOG_FILE \(.*server\.log\) is a symbolic link/);
    expect(await readFile(target, 'utf8')).toBe('keep me');
  });

  it('refuses a directory, or a path inside a file, with one line naming PARALLEL_LLM_LOG_FILE', async () => {
    const dir = await tempDir();
    expect(configErrorFor(dir).message).toBe(`PARALLEL_LLM_LOG_FILE (${dir}) is a directory: name a file`);
    await writeFile(path.join(dir, 'file'), '');
    expect(configErrorFor(path.join(dir, 'file', 'server.log')).message).toMatch(/^PARALLEL_LLM_LOG_FILE \(.*\) cannot be opened: ENOTDIR/);
    await mkdir(path.join(dir, 'ok'));
    expect(configErrorFor(path.join(dir, 'ok')).message).toContain('is a directory');
  });

  it.skipIf(!existsSync('/dev/full'))('never throws into the caller when the disk is full (/dev/full)', async () => {
    const logger = createLogger({ level: 'info', file: '/dev/full', stderrLevel: 'silent' });
    for (let i = 0; i < 2000; i++) logger.info({ i }, 'a line the disk will refuse');
    await flushed(logger);
    logger.info('still logging after the failures');
    await flushed(logger);
  });
});

describe('DroppingSink', () => {
  it('drops lines, without blocking, while the destination does not keep up; then says how many it dropped', async () => {
    const slow = new PassThrough({ highWaterMark: 64, readableHighWaterMark: 64 });
    const sink = new DroppingSink(slow, { maxWaitingBytes: 1000 });
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 100; i++) sink.write(line);
    expect(slow.writableLength).toBeLessThanOrEqual(1000);

    let out = '';
    slow.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await sink.drained(1000);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = out.trim().split('\n');
    const kept = lines.filter((text) => text === line.trim()).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(100);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: 40, dropped: 100 - kept });
  });

  it('says it is drained as soon as its lines are written, not when its time is up (a stream that was never full emits no drain)', async () => {
    const written: string[] = [];
    const slowFile = new Writable({
      write(chunk: Buffer, _encoding, done) {
        setTimeout(() => {
          written.push(chunk.toString());
          done();
        }, 20);
      },
    });
    const sink = new DroppingSink(slowFile);
    sink.write('the last line\n');
    await expect(within(5000, sink.drained(60_000))).resolves.toBeUndefined();
    expect(written).toEqual(['the last line\n']);
  });

  it('stops waiting for the lines of a stream that failed without calling back for them', async () => {
    const stuck = new Writable({
      write() {
        // Never calls back: a write the disk will not finish.
      },
    });
    stuck.on('error', () => undefined);
    const sink = new DroppingSink(stuck);
    sink.write('held\n');
    const drained = sink.drained(60_000);
    stuck.destroy(Object.assign(new Error('write EIO'), { code: 'EIO' }));
    await expect(within(5000, drained)).resolves.toBeUndefined();
  });

  it('still writes a line longer than its limit when nothing is waiting', () => {
    const idle = new PassThrough();
    new DroppingSink(idle, { maxWaitingBytes: 1000 }).write(`${'y'.repeat(5000)}\n`);
    expect(idle.read().toString()).toHaveLength(5001);
  });

  it('writes the lines of one turn of the event loop together once the turn has run, when asked to (the log file)', async () => {
    const batches: string[][] = [];
    const file = new Writable({
      writev(chunks, done) {
        batches.push(chunks.map(({ chunk }) => String(chunk)));
        done();
      },
    });
    const sink = new DroppingSink(file, { perTurn: true });
    for (const line of ['one\n', 'two\n', 'three\n']) sink.write(line);
    expect(batches).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['one\n', 'two\n', 'three\n']]);
    sink.write('four\n');
    await sink.drained(5000);
    expect(batches).toEqual([['one\n', 'two\n', 'three\n'], ['four\n']]);
  });

  it('stops writing to a destination that failed (EPIPE), and never throws', async () => {
    let attempts = 0;
    const broken = new Writable({
      write(_chunk, _encoding, done) {
        attempts++;
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const sink = new DroppingSink(broken);
    sink.write('one\n');
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 10; i++) sink.write('more\n');
    await sink.drained(100);
    expect(attempts).toBe(1);
  });
});
