import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A JSON scalar: a string, a number, true, false or null. */
const SCALAR = String.raw`"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null`;
/** A member with a scalar value at the start of the text (sticky). */
const LEADING = new RegExp(String.raw`\s*"((?:[^"\\]|\\.)*)"\s*:\s*(${SCALAR})\s*([,}])`, 'y');
/** A member with a scalar value at the end of the text, after the `,` or `{` before it. */
const TRAILING = new RegExp(String.raw`[,{]\s*"((?:[^"\\]|\\.)*)"\s*:\s*(${SCALAR})\s*$`);

/**
 * The id of the request a line that cannot be read whole carried, from what can be read of
 * it: the top-level members with plain values at its start (`{"jsonrpc":"2.0","id":7,
 * "method":...` as most clients write them) and at its end (`...,"jsonrpc":"2.0","id":7}` as
 * the TypeScript SDK does). Undefined unless a `method` shows it is a request (a response or a
 * notification is never answered) and an `id` is in sight.
 */
export function salvageRequestId(head: string, tail: string): RequestId | undefined {
  return requestIdOf({ ...trailingMembers(tail), ...leadingMembers(head) });
}

/** The id of a message that is a request (it has a `method`) with a valid id; undefined otherwise. */
export function requestIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
}

function leadingMembers(text: string): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  const start = /^\s*\{/.exec(text);
  if (!start) return members;
  LEADING.lastIndex = start[0].length;
  for (let match = LEADING.exec(text); match; match = match[3] === ',' ? LEADING.exec(text) : null) {
    addMember(members, match[1]!, match[2]!);
  }
  return members;
}

function trailingMembers(text: string): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  let rest = text.trimEnd();
  if (!rest.endsWith('}')) return members;
  rest = rest.slice(0, -1);
  for (let match = TRAILING.exec(rest); match; match = TRAILING.exec(rest)) {
    addMember(members, match[1]!, match[2]!);
    if (rest[match.index] === '{') break;
    rest = rest.slice(0, match.index);
  }
  return members;
}

function addMember(members: Record<string, unknown>, rawKey: string, rawValue: string): void {
  try {
    members[JSON.parse(`"${rawKey}"`) as string] = JSON.parse(rawValue);
  } catch {
    // Not a member after all (a cut escape, say): it tells nothing.
  }
}
