/**
 * Server-sent events, reduced to what chat completions use: the `data:` payload of each
 * event. Comments (`: OPENROUTER PROCESSING`) and other fields are skipped.
 */
export async function* sseData(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of chunks) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(dataField(line));
      }
    }
  }
  const last = buffer.replace(/\r$/, '');
  if (last.startsWith('data:')) data.push(dataField(last));
  if (data.length > 0) yield data.join('\n');
}

/** The value of a `data:` line; one space after the colon is part of the syntax. */
const dataField = (line: string) => line.slice(line.startsWith('data: ') ? 6 : 5);
