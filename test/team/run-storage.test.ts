import { describe, expect, it } from 'vitest';
import { reserve } from '../../packages/team/src/index.js';
import { newRunId, type RunStorage } from '../../src/store/store.js';
import { waitFor } from '../support/wait.js';
import { storeDatabase } from './run-store-setup.js';

/** The run store seam on Postgres: the same behaviour as the local file store, per member. */
const db = await storeDatabase();

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string; kind?: string }) => error.code ?? error.kind,
  );

describe('PgRunStorage: runs', () => {
  it('creates a run once, opens it by id, and nothing else: a taken id, a malformed one, an unknown one', async () => {
    const store: RunStorage = db.store();
    const id = newRunId();
    const place = await store.createRun(id);
    expect(place.name).toBe(id);
    expect(await code(store.createRun(id))).toBe('ERR_STORE_UNSAFE');
    expect(await code(store.createRun('../etc'))).toBe('ERR_STORE_BAD_NAME');
    expect((await store.openRun(id))?.name).toBe(id);
    expect(await store.openRun(newRunId())).toBeUndefined();
    expect(await store.openRun("x' OR '1'='1")).toBeUndefined();
  });

  it('makes the run row the budget reserved its place, for its member only; discarding it keeps the reservation', async () => {
    const id = newRunId();
    expect((await reserve(db.pool, { memberId: db.ann.id, runId: id, worstCaseUsd: 0.5, models: ['m/a'] })).ok).toBe(true);
    expect(await db.store(db.ann).openRun(id)).toBeUndefined();
    expect(await code(db.store(db.bob).createRun(id))).toBe('ERR_STORE_UNSAFE');
    const place = await db.store(db.ann).createRun(id);
    expect((await db.store(db.ann).openRun(id))?.name).toBe(id);
    expect(await code(db.store(db.ann).createRun(id))).toBe('ERR_STORE_UNSAFE');
    await place.discard();
    expect(await db.store(db.ann).openRun(id)).toBeUndefined();
    const { rows } = await db.pool.query('SELECT reserved_usd::float8 AS reserved, models FROM plm.runs WHERE id = $1', [id]);
    expect(rows).toEqual([{ reserved: 0.5, models: ['m/a'] }]);
  });

  it('lists run ids newest first, up to the limit', async () => {
    const store = db.store(await db.member('lister'));
    const times = ['2026-01-02T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z'];
    const ids = times.map((at) => newRunId(new Date(at)));
    for (const id of ids) await store.createRun(id);
    expect(await store.listRuns(10)).toEqual([ids[2], ids[0], ids[1]]);
    expect(await store.listRuns(2)).toEqual([ids[2], ids[0]]);
  });

  it('shows where runs are without the password: the database and the member', async () => {
    const store = db.store(db.ann, {}, db.url.replace('postgres@', 'postgres:s3cret@'));
    const place = await store.createRun(newRunId());
    expect(store.rootDir).toMatch(/^postgres:\/\/127\.0\.0\.1:\d+\/t_[0-9a-f]+ \(member ann\)$/);
    expect(place.dir).toMatch(new RegExp(`^postgres://127\\.0\\.0\\.1:\\d+/t_[0-9a-f]+/runs/${place.name}$`));
    expect(`${store.rootDir} ${place.dir}`).not.toContain('s3cret');
  });
});

describe('PgRunStorage: texts', () => {
  it('keeps a text whole and reads it back; absent is undefined, and a read over its limit is refused', async () => {
    const place = await db.store().createRun(newRunId());
    await place.write('run.json', '{"a":1}\n');
    expect(await place.read('run.json', 100)).toBe('{"a":1}\n');
    expect(await place.read('final.md', 100)).toBeUndefined();
    expect(await code(place.read('run.json', 7))).toBe('ERR_STORE_TOO_LARGE');
    expect(await place.read('run.json', 8)).toBe('{"a":1}\n');
    expect(await code(place.write('../run.json', 'x'))).toBe('ERR_STORE_BAD_NAME');
  });

  it('replaces a text whole when it is written again; writers of one name at once take turns, and one of them wins', async () => {
    const place = await db.store().createRun(newRunId());
    for (const version of [1, 2, 3]) await place.write('run.json', `version ${version}`);
    expect(await place.read('run.json', 100)).toBe('version 3');
    const racing = Array.from({ length: 5 }, (_, i) => `racer ${i}`);
    await Promise.all(racing.map((text) => place.write('run.json', text)));
    expect(racing).toContain(await place.read('run.json', 100));
    expect(await place.list()).toEqual(['run.json']);
  });

  it('keeps any text exactly: NUL, a character of four bytes, a lone surrogate as U+FFFD, as a file does', async () => {
    const place = await db.store().createRun(newRunId());
    await place.write('a.md', 'nul \u0000 here, 😀, lone \ud800 end');
    expect(await place.read('a.md', 100)).toBe('nul \u0000 here, 😀, lone \ufffd end');
  });

  it('writes a text piece by piece in batches, seen by no reader until whole; a discarded one leaves nothing', async () => {
    const place = await db.store().createRun(newRunId());
    const writer = place.writer('candidate-1_a.md');
    const piece = 'x'.repeat(100);
    for (let i = 0; i < 2000; i++) await writer.write(piece);
    expect(await place.read('candidate-1_a.md', 1e6)).toBeUndefined();
    expect(await place.list()).toEqual([]);
    await writer.finish();
    expect(await place.read('candidate-1_a.md', 1e6)).toBe(piece.repeat(2000));
    const { rows } = await db.pool.query<{ chunks: number }>(
      `SELECT count(*)::int AS chunks FROM plm.run_chunks c JOIN plm.run_files f ON f.id = c.file_id WHERE f.run_id = $1`,
      [place.name],
    );
    // 200,000 characters in 2,000 pieces: a few appends of 64 Ki characters or more, not one per piece.
    expect(rows[0]!.chunks).toBeGreaterThanOrEqual(1);
    expect(rows[0]!.chunks).toBeLessThanOrEqual(4);

    const dropped = place.writer('candidate-2_b.md');
    for (let i = 0; i < 1000; i++) await dropped.write(piece);
    await dropped.discard();
    expect(await place.list()).toEqual(['candidate-1_a.md']);
    const left = await db.pool.query('SELECT 1 FROM plm.run_files WHERE run_id = $1 AND NOT complete', [place.name]);
    expect(left.rowCount).toBe(0);
  });

  it('writes what it has once the batch’s time is up, though no more text comes', async () => {
    const place = await db.store().createRun(newRunId());
    const writer = place.writer('slow.md');
    await writer.write('the first words');
    const appended = async () =>
      (await db.pool.query('SELECT 1 FROM plm.run_chunks c JOIN plm.run_files f ON f.id = c.file_id WHERE f.run_id = $1', [place.name]))
        .rowCount === 1;
    const started = Date.now();
    while (!(await appended())) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - started).toBeLessThan(2000);
    await writer.finish();
    expect(await place.read('slow.md', 100)).toBe('the first words');
  });

  it('replaces a text only once its new version is whole: readers see the old one meanwhile', async () => {
    const place = await db.store().createRun(newRunId());
    await place.write('final.md', 'old');
    const writer = place.writer('final.md');
    await writer.write('new '.repeat(50_000));
    expect(await place.read('final.md', 10)).toBe('old');
    await writer.finish();
    expect(await place.readStart('final.md', 8)).toBe('new new ');
    expect(await place.list()).toEqual(['final.md']);
  });

  it('lists the run’s whole texts, sorted', async () => {
    const place = await db.store().createRun(newRunId());
    for (const name of ['run.json', 'final.md', 'candidate-2_b.md', 'candidate-1_a.md']) await place.write(name, name);
    expect(await place.list()).toEqual(['candidate-1_a.md', 'candidate-2_b.md', 'final.md', 'run.json']);
  });
});

describe('PgRunStorage: characters across chunks', () => {
  /** Every kind of UTF-8 character, so that batch and chunk ends fall inside each. */
  const text = `${'aé€😀'.repeat(30)}𝄞z`;

  it('reads a multibyte text streamed in small batches back whole, and every start of it whole characters', async () => {
    const place = await db.store(db.ann, { batching: { batchChars: 7, batchMs: 5 } }).createRun(newRunId());
    const writer = place.writer('multi.md');
    const chunks = async () =>
      (await db.pool.query('SELECT 1 FROM plm.run_chunks c JOIN plm.run_files f ON f.id = c.file_id WHERE f.run_id = $1', [place.name]))
        .rowCount;
    // A piece of a whole batch is appended at once, each in a chunk of its own: every second boundary
    // of 7 falls between the halves of a surrogate pair, which waits for the next chunk.
    for (let at = 0, appended = 0; at < text.length; at += 7) {
      await writer.write(text.slice(at, at + 7));
      appended++;
      await waitFor(async () => (await chunks()) === appended);
    }
    await writer.finish();
    expect(await place.read('multi.md', 10_000)).toBe(text);
    const bytes = Buffer.byteLength(text);
    for (let cut = 0; cut <= bytes; cut++) {
      const start = (await place.readStart('multi.md', cut))!;
      expect(text.startsWith(start)).toBe(true);
      expect(Buffer.byteLength(start)).toBeGreaterThan(cut - 4);
      expect(Buffer.byteLength(start)).toBeLessThanOrEqual(cut);
    }
  });

  it('reads the start of a text written whole, cut inside a character at the edge of its 1 MiB chunks, as whole characters', async () => {
    const place = await db.store().createRun(newRunId());
    // 1 MiB - 1 byte of ASCII, then a euro sign: its three bytes fall across the first chunk's end.
    const long = `${'a'.repeat(1024 * 1024 - 1)}€${'b'.repeat(10)}`;
    await place.write('long.md', long);
    expect(await place.read('long.md', 2 * 1024 * 1024)).toBe(long);
    expect(await place.readStart('long.md', 1024 * 1024 + 1)).toBe('a'.repeat(1024 * 1024 - 1));
    expect(await place.readStart('long.md', 1024 * 1024 + 2)).toBe(`${'a'.repeat(1024 * 1024 - 1)}€`);
  });
});

describe('PgRunStorage: discard', () => {
  it('removes a place it made with what it wrote; one holding anything else stays; one only opened is refused', async () => {
    const store = db.store();
    const gone = await store.createRun(newRunId());
    await gone.write('probe.md', 'x');
    await gone.discard();
    expect(await store.openRun(gone.name)).toBeUndefined();

    const kept = await store.createRun(newRunId());
    await kept.write('mine.md', 'x');
    await (await store.openRun(kept.name))!.write('theirs.md', 'y');
    expect(await code(kept.discard())).toBe('ERR_STORE_UNSAFE');
    expect(await (await store.openRun(kept.name))!.list()).toEqual(['theirs.md']);
    expect(await code((await store.openRun(kept.name))!.discard())).toBe('ERR_STORE_UNSAFE');
  });
});
