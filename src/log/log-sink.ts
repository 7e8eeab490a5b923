import { write as fsWrite } from 'node:fs';
import { Writable } from 'node:stream';

/** About how many bytes a destination may hold waiting before new lines are dropped. */
const MAX_WAITING_BYTES = 1024 * 1024;

export interface SinkOptions {
  maxWaitingBytes?: number;
  /**
   * The lines of one turn of the event loop go out together once it has run, so that logging
   * never puts a write to the disk ahead of the turn's own work (a request going out, a file
   * the caller waits for). Lines of the turn a process exits in without `drained` are lost.
   */
  perTurn?: boolean;
}

/**
 * Where pino writes a log line: it never blocks the event loop and never throws. A line
 * goes to `stream` unless too much is already waiting (a stderr pipe nobody reads, a slow
 * disk) or the stream has failed (EPIPE); then it is dropped, and once the stream drains
 * again a line says how many were lost.
 */
export class DroppingSink {
  private dropped = 0;
  private failed = false;
  /** Lines handed to the stream and not yet written: 'drain' tells only of a stream that was full. */
  private unwritten = 0;
  /** Those waiting for every line to be written (`drained`). */
  private readonly waiters = new Set<() => void>();
  private readonly lineWritten = () => {
    if (--this.unwritten === 0) for (const waiter of this.waiters) waiter();
  };

  private readonly maxWaitingBytes: number;
  private readonly perTurn: boolean;
  /** The stream is corked until the end of this turn of the event loop (see `perTurn`). */
  private corked = false;

  constructor(
    private readonly stream: Writable,
    { maxWaitingBytes = MAX_WAITING_BYTES, perTurn = false }: SinkOptions = {},
  ) {
    this.maxWaitingBytes = maxWaitingBytes;
    this.perTurn = perTurn;
    stream.on('error', () => this.fail());
    stream.on('drain', () => this.reportDropped());
  }

  write(line: string): void {
    // A line longer than the limit still goes out when nothing is waiting before it.
    const waiting = this.stream.writableLength;
    if (this.failed || (waiting > 0 && waiting + line.length > this.maxWaitingBytes)) {
      this.dropped++;
      return;
    }
    try {
      if (this.perTurn) this.corkForTurn();
      this.unwritten++;
      this.stream.write(line, this.lineWritten);
    } catch {
      this.unwritten--;
      this.failed = true;
      this.dropped++;
    }
  }

  /** Resolves when nothing is waiting any more, or after `ms`: at exit, what can be written is written, and no more waiting than that. */
  drained(ms: number): Promise<void> {
    if (this.failed || this.unwritten === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private corkForTurn(): void {
    if (this.corked) return;
    this.corked = true;
    this.stream.cork();
    setImmediate(() => {
      this.corked = false;
      try {
        this.stream.uncork();
      } catch {
        this.fail();
      }
    });
  }

  private fail(): void {
    this.failed = true;
    // A failed stream may never call back for the lines it held: nobody waits for them.
    for (const waiter of this.waiters) waiter();
  }

  private reportDropped(): void {
    if (this.dropped === 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    this.write(warningLine('log lines dropped: the log destination did not keep up', { dropped }));
  }
}

/** A warning in pino's JSON shape, for the sinks to say something about themselves. */
export function warningLine(msg: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ level: 40, time: new Date().toISOString(), name: 'parallel-llm-mcp', ...fields, msg })}\n`;
}

/**
 * An open file as a stream that never fails: lines are written asynchronously, in batches,
 * and a batch the file refuses (a full disk) is dropped. `onTrouble` hears of the first
 * failure of each run of failures, so a full disk is reported once, not once per line.
 */
export function fileStream(fd: number, onTrouble: (error: NodeJS.ErrnoException) => void): Writable {
  let failing = false;
  return new Writable({
    writev(chunks, done) {
      writeAll(fd, Buffer.concat(chunks.map(({ chunk }) => chunk as Buffer)), (error) => {
        if (error && !failing) onTrouble(error);
        failing = error !== null;
        done();
      });
    },
  });
}

function writeAll(fd: number, data: Buffer, done: (error: NodeJS.ErrnoException | null) => void): void {
  fsWrite(fd, data, 0, data.length, null, (error, written) => {
    if (error) done(error);
    else if (written > 0 && written < data.length) writeAll(fd, data.subarray(written), done);
    else done(null);
  });
}
