import { UpstreamError } from '../../errors.js';
import type { ContentSink } from '../../openrouter/decode.js';
import { err, type Result } from '../../result.js';
import { agreementFrom, parseJson, readAgreement, type Agreement, type CandidateLabel } from './account.js';
import { JsonReplySplitter, type JsonSplit } from './json-reply.js';
import type { AgreementFormat } from './prompt.js';
import { SectionSplitter, type SplitReply } from './section.js';

interface ToldReply {
  answer: string;
  agreement: Agreement | null;
  warning?: string;
}

/** The answer, and the account: none given, or what reading it gave. `note` says more about a missing one. */
interface ReadReply {
  answer: string;
  account?: Result<Agreement, string>;
  note?: string;
}

/** A reply without a readable account is still a whole answer; one with no answer fails, as an empty reply does. */
export function replyReader(
  labels: readonly CandidateLabel[],
  format: AgreementFormat,
): {
  sink: ContentSink;
  read(model: string, ending: { truncated: boolean; cutShort?: string | undefined }): ToldReply;
} {
  const splitter = format === 'json' ? new JsonReplySplitter() : new SectionSplitter();
  return {
    sink: { keepChars: 0, write: (piece) => splitter.push(piece) },
    read(model, ending) {
      const {
        answer,
        account,
        note = '',
      } = splitter instanceof JsonReplySplitter ? fromJson(splitter.end(), labels) : fromSection(splitter.end(), labels);
      if (!/\S/.test(answer)) {
        throw new UpstreamError({ kind: 'empty', message: 'the synthesizer wrote its account of the answers but no answer' });
      }
      const cut = ending.cutShort ? ` (${ending.cutShort})` : ending.truncated ? ' (its reply was cut at max_tokens)' : '';
      if (account === undefined) {
        return {
          answer,
          agreement: null,
          warning: `agreement: ${model} gave no account of where the models agreed and differed${note}${cut}`,
        };
      }
      if (account.ok) return { answer, agreement: account.value };
      return {
        answer,
        agreement: null,
        warning: `agreement: ${model}'s account of where the models agreed and differed could not be read: ${account.error}${cut}`,
      };
    },
  };
}

function fromSection({ answer, section }: SplitReply, labels: readonly CandidateLabel[]): ReadReply {
  return section === undefined ? { answer } : { answer, account: readAgreement(section, labels) };
}

/** A model that ignored the schema may still have written the section, or the object in a code fence. */
function fromJson(split: JsonSplit, labels: readonly CandidateLabel[]): ReadReply {
  if (split.kind === 'plain') {
    const fenced = split.split.section === undefined && /^\s*```(?:json)?\s*\n(\{[\s\S]*\})\s*```\s*$/.exec(split.split.answer);
    if (fenced) {
      const inner = new JsonReplySplitter();
      inner.push(fenced[1]!);
      const object = inner.end();
      if (object.kind === 'object' && object.answered === 'whole') return fromJson(object, labels);
    }
    return { ...fromSection(split.split, labels), note: ': it answered in plain text, not in the JSON object asked for' };
  }
  const { answer, answered, rest } = split;
  if (answered === 'no')
    return { answer, account: err('its JSON object has no "answer" string, so the whole reply is kept as the answer') };
  if (answered === 'cut') return { answer, account: err('its JSON ended inside the answer') };
  const json = parseJson(rest);
  if (!json.ok) return { answer, account: json };
  const agreement = typeof json.value === 'object' && json.value !== null ? (json.value as { agreement?: unknown }).agreement : undefined;
  return agreement === undefined ? { answer } : { answer, account: agreementFrom(agreement, labels) };
}
