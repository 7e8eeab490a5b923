/** The synthesizer writes its answer, this marker on a line, then its account of agreement (SPEC §10). */
export const AGREEMENT_MARKER = '<<<AGREEMENT>>>';

/** What a model may wrap a line in when it copies it: spaces, emphasis, backticks, and before it a heading or a quote. */
const BEFORE = /^[\s*_`#>]+/;
const AFTER = /^[\s*_`]*$/;

export function isMarkerLine(line: string): boolean {
  const bare = line.replace(BEFORE, '');
  return bare.startsWith(AGREEMENT_MARKER) && AFTER.test(bare.slice(AGREEMENT_MARKER.length));
}

function mayBecomeMarker(start: string): boolean {
  const bare = start.replace(BEFORE, '');
  return bare.length <= AGREEMENT_MARKER.length ? AGREEMENT_MARKER.startsWith(bare) : isMarkerLine(bare);
}

export interface SplitReply {
  answer: string;
  section: string | undefined;
}

/** Only the start of a line that could still be the marker is held back, wherever the chunks split it. */
export class SectionSplitter {
  private readonly answerParts: string[] = [];
  private readonly sectionParts: string[] = [];
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

/** Drops a fence opened on the last line and never closed: the model put the account inside it. */
function withoutOpenedFence(answer: string): string {
  const fences = answer.match(/^\s*```/gm)?.length ?? 0;
  const last = answer.lastIndexOf('\n');
  return fences % 2 === 1 && /^\s*```\w*\s*$/.test(answer.slice(last + 1)) ? answer.slice(0, Math.max(0, last)).trimEnd() : answer;
}

export function splitReply(reply: string): SplitReply {
  const splitter = new SectionSplitter();
  splitter.push(reply);
  return splitter.end();
}
