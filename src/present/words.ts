import type { ModelError } from '../run/record.js';

export const seconds = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(1)} s`);

/** The text with its first letter in upper case, to begin a sentence. */
export const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** "1 model", "2 models": never "1 models". */
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Joins sentences' worth of text without doubling the full stop a message already ends with. */
export const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** An error in full: kind, status, the upstream's own message, and what to do about it. */
export function describeError(error: ModelError): string {
  const status = error.status === undefined ? '' : ` ${error.status}`;
  return `${error.kind}${status}: ${sentence(error.message)}${error.advice ? ` ${error.advice}` : ''}`;
}

/** An error in a few words, for the first line of a result. */
export function briefError(error: ModelError): string {
  switch (error.kind) {
    case 'rate_limited':
      return `rate limited (${error.status ?? 429})`;
    case 'http':
      return `HTTP ${error.status ?? '?'}: ${clip(error.message)}`;
    case 'timeout':
      return 'timed out';
    case 'truncated':
      return 'used all of max_tokens before answering';
    case 'empty':
      return 'answered with nothing';
    case 'cancelled':
      return 'cancelled';
    default:
      return `${error.kind.replace('_', ' ')} error: ${clip(error.message)}`;
  }
}

/** A text on one line, at most `max` characters, without its closing punctuation. */
export const clip = (text: string, max = 80) => {
  const plain = text.replace(/\s+/g, ' ').replace(/[.!?]+$/, '');
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
};
