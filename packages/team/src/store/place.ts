import type { StoreDb } from './db.js';
import { RunStoreError } from './errors.js';
import { FILE_NAME, checkName } from './names.js';
import { TextRows } from './text-rows.js';
import { PgTextWriter, type Batching } from './text-writer.js';

/** How this object came by its run's place: made it (a new row, or one the budget made), or only opened it. */
export type Origin = 'made' | 'adopted' | 'opened';

/** No read asks for more than this many bytes, whatever it was given. */
const MAX_READ_BYTES = 2 ** 40;

/** One run's place in Postgres (see src/store/store.ts's RunPlace): run.json and its texts, each whole or absent. */
export class PgRunPlace {
  readonly dir: string;
  private readonly rows: TextRows;
  /** The only texts `discard` may remove. */
  private readonly written = new Set<string>();

  constructor(
    readonly name: string,
    db: StoreDb,
    memberId: string,
    where: string,
    private readonly origin: Origin,
    private readonly options: { batching?: Batching } = {},
  ) {
    this.dir = `${where}/runs/${name}`;
    this.rows = new TextRows(db, memberId, name);
  }

  /** Resolves with the text's name once this text is kept, in one transaction. */
  async write(fileName: string, text: string): Promise<string> {
    checkName(fileName, FILE_NAME, 'file name');
    // Noted first: a write whose reply was lost may have landed.
    this.written.add(fileName);
    await this.rows.putWhole(fileName, Buffer.from(text, 'utf8'));
    return fileName;
  }

  /** For an answer as it streams; each committed chunk is already durable. */
  writer(fileName: string): PgTextWriter {
    checkName(fileName, FILE_NAME, 'file name');
    return new PgTextWriter(this.rows, fileName, this.options.batching, () => this.written.add(fileName));
  }

  /** The whole text, undefined when absent; rejects with ERR_STORE_TOO_LARGE past `maxBytes`. */
  async read(fileName: string, maxBytes: number): Promise<string | undefined> {
    checkName(fileName, FILE_NAME, 'file name');
    const found = await this.rows.read(fileName, bound(maxBytes), true);
    if (!found) return undefined;
    if (found.bytes > maxBytes)
      throw new RunStoreError('ERR_STORE_TOO_LARGE', `${fileName} of run ${this.name} is larger than ${maxBytes} bytes`);
    return found.data.toString('utf8');
  }

  /** At most `maxBytes` of the text's start, never cut inside a character. */
  async readStart(fileName: string, maxBytes: number): Promise<string | undefined> {
    checkName(fileName, FILE_NAME, 'file name');
    const found = await this.rows.read(fileName, bound(maxBytes), false);
    // A streaming decode leaves out the first bytes of a character the cut went through.
    return found && new TextDecoder().decode(found.data.subarray(0, bound(maxBytes)), { stream: true });
  }

  async list(): Promise<string[]> {
    return (await this.rows.names()).sort();
  }

  /** Removes a place this object made, with the texts it wrote there; it stays if anything else appeared in it. */
  async discard(): Promise<void> {
    if (this.origin === 'opened') throw new RunStoreError('ERR_STORE_UNSAFE', `run ${this.name} was not created by this process`);
    if (!(await this.rows.remove([...this.written], this.origin === 'adopted')))
      throw new RunStoreError('ERR_STORE_UNSAFE', `run ${this.name} holds texts this process did not write: it stays`);
  }
}

const bound = (maxBytes: number) => Math.max(0, Math.min(Math.floor(maxBytes), MAX_READ_BYTES));
