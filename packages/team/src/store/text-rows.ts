import type { StoreDb } from './db.js';
import { RunStoreError } from './errors.js';

/** A text written whole is kept in chunks of at most this many bytes, so the start of a long one reads alone. */
const WHOLE_CHUNK_BYTES = 1024 * 1024;

/** Where one of the run's rows may be touched: only the member's own run, and only once the store made its place. */
const OWN_RUN = 'SELECT id FROM plm.runs WHERE id = $1 AND member_id = $2 AND stored_at IS NOT NULL';

/**
 * The SQL of one run's texts, always through the member's own run: a text is a plm.run_files row
 * and its chunks in plm.run_chunks. Readers see only complete rows, so a text is whole or absent.
 */
export class TextRows {
  constructor(
    private readonly db: StoreDb,
    private readonly memberId: string,
    readonly runId: string,
  ) {}

  /** Replaces the text `name` with `content`, in one statement: readers see the old text or the new. */
  async putWhole(name: string, content: Buffer): Promise<void> {
    const file = await this.db.query<{ id: string | null }>(
      `writing ${name} of run ${this.runId}`,
      'SELECT plm.put_text($1, $2, $3, $4, $5) AS id',
      [this.runId, this.memberId, name, content, WHOLE_CHUNK_BYTES],
    );
    this.found(file.rows[0]?.id ?? undefined);
  }

  /** A row for a text that streams in, seen by no reader until `complete`. */
  async open(name: string): Promise<string> {
    const file = await this.db.query<{ id: string }>(
      `starting ${name} of run ${this.runId}`,
      `INSERT INTO plm.run_files (run_id, name) SELECT id, $3 FROM (${OWN_RUN}) run RETURNING id`,
      [this.runId, this.memberId, name],
    );
    return this.found(file.rows[0]?.id);
  }

  /** Appends one chunk of a streaming text, `at` bytes into it; its row's size and time follow in the same statement. */
  async append(fileId: string, seq: number, at: number, data: Buffer): Promise<void> {
    await this.db.query(
      'writing a chunk',
      `WITH chunk AS (INSERT INTO plm.run_chunks (file_id, seq, at_byte, data) VALUES ($1, $2, $3, $4))
       UPDATE plm.run_files SET bytes = $5, updated_at = now() WHERE id = $1`,
      [fileId, seq, at, data, at + data.length],
    );
  }

  /** The streamed text becomes `name`'s, in place of any before it. */
  async complete(name: string, fileId: string): Promise<void> {
    const { rows } = await this.db.query<{ done: boolean }>(
      `finishing ${name} of run ${this.runId}`,
      'SELECT plm.finish_text($1, $2, $3, $4) AS done',
      [this.runId, this.memberId, name, fileId],
    );
    if (!rows[0]?.done) throw new RunStoreError('ERR_STORE_UNSAFE', `${name} of run ${this.runId} was removed while it was written`);
  }

  /** Removes a streamed text that will not be finished, with its chunks. */
  async drop(fileId: string): Promise<void> {
    await this.db.query('removing an unfinished text', 'DELETE FROM plm.run_files WHERE id = $1 AND NOT complete', [fileId]);
  }

  /**
   * The first bytes of the complete text `name`, up to `maxBytes` (whole chunks: the caller cuts),
   * and its size; undefined when there is none. With `whole`, no chunk is read of a text over `maxBytes`.
   */
  async read(name: string, maxBytes: number, whole: boolean): Promise<{ bytes: number; data: Buffer } | undefined> {
    const { rows } = await this.db.query<{ bytes: string; data: Buffer | null }>(
      `reading ${name} of run ${this.runId}`,
      `SELECT f.bytes, c.data FROM plm.run_files f
       LEFT JOIN plm.run_chunks c ON c.file_id = f.id AND c.at_byte < $4::bigint AND (NOT $5::boolean OR f.bytes <= $4::bigint)
       WHERE f.run_id IN (${OWN_RUN}) AND f.name = $3 AND f.complete ORDER BY c.seq`,
      [this.runId, this.memberId, name, maxBytes, whole],
    );
    if (rows.length === 0) return undefined;
    return { bytes: Number(rows[0]!.bytes), data: Buffer.concat(rows.flatMap((row) => (row.data ? [row.data] : []))) };
  }

  async names(): Promise<string[]> {
    const { rows } = await this.db.query<{ name: string }>(
      `listing the texts of run ${this.runId}`,
      `SELECT name FROM plm.run_files WHERE run_id IN (${OWN_RUN}) AND complete`,
      [this.runId, this.memberId],
    );
    return rows.map((row) => row.name);
  }

  /**
   * Removes the texts named, then the run's place if nothing else is left in it: its row goes, or
   * with `keepRun` (a row the budget made) only its place. False when something else was left.
   */
  async remove(names: string[], keepRun: boolean): Promise<boolean> {
    return this.db.transaction(`removing run ${this.runId}`, async (query) => {
      await query(`DELETE FROM plm.run_files WHERE run_id IN (${OWN_RUN}) AND name = ANY($3)`, [this.runId, this.memberId, names]);
      const left = await query('SELECT 1 FROM plm.run_files WHERE run_id = $1 LIMIT 1', [this.runId]);
      if (left.rowCount !== 0) return false;
      await query(
        keepRun
          ? 'UPDATE plm.runs SET stored_at = NULL WHERE id = $1 AND member_id = $2'
          : 'DELETE FROM plm.runs WHERE id = $1 AND member_id = $2',
        [this.runId, this.memberId],
      );
      return true;
    });
  }

  private found(id: string | undefined): string {
    if (id === undefined) throw new RunStoreError('ERR_STORE_UNSAFE', `run ${this.runId} is not in the store (removed meanwhile?)`);
    return id;
  }
}
