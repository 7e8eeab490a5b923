/**
 * The synthesizer writes its answer, then a line with only AGREEMENT_MARKER, then its account
 * of where the candidates agreed and differed (SPEC §10). `SectionSplitter` reads that reply as
 * it streams in: it passes the answer on piece by piece and keeps what follows the marker line,
 * so the marker and the account never reach the answer, wherever the stream's chunks split them.
 */
export const AGREEMENT_MARKER = '<<<AGREEMENT>>>';

/** What a model may wrap a line in when it copies it: spaces, emphasis, backticks, and before it a heading or a quote. */
const BEFORE = /^[\s*_`#>]+/;
const AFTER = /^[\s*_`]*$/;

/** Whether `line` (without its newline) is the marker line, as a model may decorate it. */
export function isMarkerLine(line: string): boolean {
  const bare = line.replace(BEFORE, '');
  return bare.startsWith(AGREEMENT_MARKER) && AFTER.test(bare.slice(AGREEMENT_MARKER.length));
}

/** Whether `start`, the beginning of a line, could still become the marker line once the rest of it arrives. */
function mayBecomeMarker(start: string): boolean {
  const bare = start.replace(BEFORE, '');
  return bare.length <= AGREEMENT_MARKER.length ? AGREEMENT_MARKER.startsWith(bare) : isMarkerLine(bare);
}

export interface SplitReply {
  /** The answer: the reply before the marker line (its trailing blank lines dropped), or the whole reply without one. */
  answer: string;
  /** What followed the marker line; undefined when the reply had no marker line. */
  section: string | undefined;
}

/**
 * Splits a streamed reply at the first line that is the marker. Only the start of a line that
 * could still be the marker is held back; everything else is passed to `onAnswer` at once.
 */
export class SectionSplitter {
  private readonly answerParts: string[] = [];
  private readonly sectionParts: string[] = [];
  /** The start of the current line, held back while it may be the marker line. */
  private held = '';
  /** Part of the current line has been passed on: it is not the marker line. */
  private lineOpen = false;
  private inSection = false;

  constructor(private readonly onAnswer: (piece: string) => void = () => undefined) {}

  push(piece: string): void {
    if (this.inSection) {
      this.sectionParts.push(piece);
      return;
    }
    let text = this.held + piece;
    this.held = '';
    for (;;) {
      const newline = text.indexOf('\n');
      if (newline === -1) {
        if (!this.lineOpen && mayBecomeMarker(text)) this.held = text;
        else if (text !== '') {
          this.emit(text);
          this.lineOpen = true;
        }
        return;
      }
      const line = text.slice(0, newline);
      if (!this.lineOpen && isMarkerLine(line)) {
        this.inSection = true;
        this.sectionParts.push(text.slice(newline + 1));
        return;
      }
      this.emit(text.slice(0, newline + 1));
      this.lineOpen = false;
      text = text.slice(newline + 1);
    }
  }

  /** The reply has ended: the answer and the section, as split. */
  end(): SplitReply {
    if (!this.inSection && this.held !== '') {
      if (isMarkerLine(this.held)) this.inSection = true;
      else this.emit(this.held);
      this.held = '';
    }
    const answer = this.answerParts.join('');
    if (!this.inSection) return { answer, section: undefined };
    return { answer: withoutOpenedFence(answer.trimEnd()), section: this.sectionParts.join('') };
  }

  private emit(piece: string): void {
    this.answerParts.push(piece);
    this.onAnswer(piece);
  }
}

/**
 * The answer without a code fence opened on its last line and never closed: a model that put
 * the marker and its account inside a fence. (Only the account follows such a fence.)
 */
function withoutOpenedFence(answer: string): string {
  const fences = answer.match(/^\s*```/gm)?.length ?? 0;
  const last = answer.lastIndexOf('\n');
  return fences % 2 === 1 && /^\s*```\w*\s*$/.test(answer.slice(last + 1)) ? answer.slice(0, Math.max(0, last)).trimEnd() : answer;
}

/** A whole reply split as `SectionSplitter` splits it streamed. */
export function splitReply(reply: string): SplitReply {
  const splitter = new SectionSplitter();
  splitter.push(reply);
  return splitter.end();
}
