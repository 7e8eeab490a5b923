import type { Socket } from 'node:net';
import { LineSplitter, MAX_LINE_BYTES, type Line } from '../text/line-splitter.js';
import type { Ask, Hello, Reply, Withdraw } from './protocol.js';

/** Asks and replies are written id first, so a line too long to read still tells whose it was. */
const LEADING_ID = /^\{"id":(\d{1,15})[,}]/;

/** A socket that has failed drops the message; its 'close' tells its owner. */
export function send(socket: Socket, message: Hello | Ask | Withdraw | Reply): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message, mapsAsEntries)}\n`);
}

/** JSON has no Map (a run's view has one): it goes as its [key, value] entries. */
const mapsAsEntries = (_key: string, value: unknown) => (value instanceof Map ? [...value] : value);

/**
 * Reads the socket's messages, one JSON object a line; `onUnreadable` gets the id (when shown) of
 * a line that is not one or is too long. A handler that throws ends the connection, never the process.
 */
export function readMessages(
  socket: Socket,
  onMessage: (message: Record<string, unknown>) => void,
  onUnreadable: (id: number | undefined, why: string) => void,
): void {
  const lines = new LineSplitter(MAX_LINE_BYTES, 64);
  const deliver = (line: Line) => {
    if (line.kind === 'too_long') {
      return onUnreadable(
        leadingId(line.head.toString('latin1')),
        `a message of ${line.length} bytes, over the limit of ${MAX_LINE_BYTES}`,
      );
    }
    const text = line.bytes.toString('utf8');
    const message = parsedObject(text);
    if (message) onMessage(message);
    else onUnreadable(leadingId(text), 'a message that is not a JSON object');
  };
  socket.on('data', (chunk: Buffer) => {
    for (const line of lines.push(chunk)) {
      if (socket.destroyed) return;
      try {
        deliver(line);
      } catch {
        socket.destroy();
      }
    }
  });
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function leadingId(start: string): number | undefined {
  const id = LEADING_ID.exec(start)?.[1];
  return id === undefined ? undefined : Number(id);
}
