import { UpstreamError } from '../../errors.js';
import type { ContentSink } from '../../openrouter/decode.js';
import { readAgreement, type Agreement, type CandidateLabel } from './account.js';
import { SectionSplitter } from './section.js';

interface ToldReply {
  answer: string;
  agreement: Agreement | null;
  warning?: string;
}

/** A reply without a readable account is still a whole answer; one with no answer before its account fails, as an empty reply does. */
export function replyReader(labels: readonly CandidateLabel[]): {
  sink: ContentSink;
  read(model: string, ending: { truncated: boolean; cutShort?: string | undefined }): ToldReply;
} {
  const splitter = new SectionSplitter();
  return {
    sink: { keepChars: 0, write: (piece) => splitter.push(piece) },
    read(model, ending) {
      const { answer, section } = splitter.end();
      if (!/\S/.test(answer)) {
        throw new UpstreamError({ kind: 'empty', message: 'the synthesizer wrote its account of the answers but no answer' });
      }
      const cut = ending.cutShort ? ` (${ending.cutShort})` : ending.truncated ? ' (its reply was cut at max_tokens)' : '';
      if (section === undefined) {
        return { answer, agreement: null, warning: `agreement: ${model} gave no account of where the models agreed and differed${cut}` };
      }
      const read = readAgreement(section, labels);
      if (read.ok) return { answer, agreement: read.value };
      return {
        answer,
        agreement: null,
        warning: `agreement: ${model}'s account of where the models agreed and differed could not be read: ${read.error}${cut}`,
      };
    },
  };
}
