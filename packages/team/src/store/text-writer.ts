import type { TextRows } from './text-rows.js';

/** A batch goes to the database at `batchChars`, or `batchMs` after its first piece, whichever comes first. */
export interface Batching {
  batchChars: number;
  batchMs: number;
}

/** 200 ms keeps a slow model's text close behind it; past four batches not yet written, the writer asks to be waited for. */
const DEFAULT_BATCHING: Batching = { batchChars: 64 * 1024, batchMs: 200 };
const HIGH_WATER_BATCHES = 4;

/** A high surrogate: the first half of a character whose second half may come with the next piece. */
const endsInsideCharacter = (text: string) => /[\uD800-\uDBFF]$/.test(text);

/**
 * A text kept as it streams in, appended in batches to a row no reader sees until `finish`, so a
 * long answer is never held whole in memory nor rewritten, and is whole or absent after a kill -9.
 * A failure is kept for `finish`, which rejects with it; later text is dropped.
 */
export class PgTextWriter {
  private fileId: Promise<string> | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  /** Bytes appended so far, and the chunks. */
  private written = 0;
  private seq = 0;
  /** One run of appends at a time keeps the chunks in order. */
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Write what there is, however little (the time is up, or the text ends). */
  private due = false;
  private ended = false;
  private dropped = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly rows: TextRows,
    private readonly name: string,
    private readonly batching: Batching = DEFAULT_BATCHING,
    /** Told once the text is kept under its name. */
    private readonly kept: () => void = () => undefined,
  ) {}

  /** A promise (that never rejects) when the database is behind: produce no more text until it settles. */
  write(text: string): Promise<void> | undefined {
    if (this.failure || this.dropped || this.ended || text === '') return undefined;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= this.batching.batchChars) this.flush();
    else this.timer ??= setTimeout(() => this.timeUp(), this.batching.batchMs).unref();
    return this.pendingChars >= HIGH_WATER_BATCHES * this.batching.batchChars ? this.writing : undefined;
  }

  /** Resolves with the text's name once the whole text is kept under it; on any failure, nothing of it is left. */
  async finish(): Promise<string> {
    this.ended = true;
    try {
      if (this.fileId === undefined) {
        // Whole before its first batch went out, as most answers of a few seconds are: one statement keeps it.
        clearTimeout(this.timer);
        await this.rows.putWhole(this.name, this.take());
      } else {
        await this.drain();
        if (this.failure) throw this.failure.error;
        await this.rows.complete(this.name, await this.fileId);
      }
    } catch (error) {
      await this.remove();
      throw error;
    }
    this.kept();
    return this.name;
  }

  async discard(): Promise<void> {
    this.dropped = true;
    this.forgetPending();
    await this.drain();
    await this.remove();
  }

  private timeUp(): void {
    this.timer = undefined;
    this.due = true;
    this.flush();
  }

  /** A run of appends going on takes what is pending when it gets to it. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing ??= this.appendBatches().finally(() => (this.writing = undefined));
  }

  private async appendBatches(): Promise<void> {
    while (!this.failure && this.pendingChars > 0 && (this.due || this.ended || this.pendingChars >= this.batching.batchChars)) {
      this.due = false;
      const batch = this.take();
      if (batch.length === 0) break;
      try {
        this.fileId ??= this.rows.open(this.name);
        const fileId = await this.fileId;
        await this.rows.append(fileId, this.seq, this.written, batch);
        this.seq++;
        this.written += batch.length;
      } catch (error) {
        this.failure = { error };
        this.forgetPending();
      }
    }
    if (this.pendingChars > 0 && !this.failure && !this.ended)
      this.timer ??= setTimeout(() => this.timeUp(), this.batching.batchMs).unref();
  }

  /** Everything pending, so a writer that fell behind catches up in one append; half a character waits for its other half. */
  private take(): Buffer {
    let text = this.pending.join('');
    this.pending = [];
    if (!this.ended && endsInsideCharacter(text)) {
      this.pending.push(text.slice(-1));
      text = text.slice(0, -1);
    }
    this.pendingChars = this.pending.length;
    return Buffer.from(text, 'utf8');
  }

  private async drain(): Promise<void> {
    while (this.writing || (this.pendingChars > 0 && !this.failure)) {
      this.due = true;
      this.flush();
      await this.writing;
    }
    clearTimeout(this.timer);
  }

  private forgetPending(): void {
    this.pending = [];
    this.pendingChars = 0;
  }

  /** The unfinished row, if one was made; a failure to remove it leaves it to the sweep of stale texts. */
  private async remove(): Promise<void> {
    const fileId = await this.fileId?.catch(() => undefined);
    if (fileId !== undefined) await this.rows.drop(fileId).catch(() => undefined);
  }
}
