#!/usr/bin/env node
/**
 * The minimal streaming consumer the streaming benches measure the server against: what a
 * program that only reads the streams must spend. Node's fetch, one streaming TextDecoder per
 * body, split on blank lines, JSON.parse of each data line, the deltas concatenated, each whole
 * answer written to its file once at the end. No MCP, no synthesis, no limits, no redaction.
 * One request per line on stdin, `{"id", "models", "dir"}`: every model asked at once; the line
 * `{"id"}` on stdout once every answer is in its file. It reads the server's environment.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';

const env = process.env;

async function ask(model) {
  const response = await fetch(`${env.OPENROUTER_BASE_URL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.OPENROUTER_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'q' }], max_tokens: 16_384, stream: true }),
  });
  const decoder = new TextDecoder();
  let rest = '';
  let answer = '';
  for await (const bytes of response.body) {
    const events = (rest + decoder.decode(bytes, { stream: true })).split('\n\n');
    rest = events.pop();
    for (const line of events.flatMap((event) => event.split('\n'))) {
      if (line.startsWith('data: ') && line !== 'data: [DONE]') answer += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '';
    }
  }
  return answer;
}

for await (const line of createInterface({ input: process.stdin })) {
  const { id, models, dir } = JSON.parse(line);
  void Promise.all(models.map(async (model, i) => writeFile(path.join(dir, `${id}-${i}.md`), await ask(model)))).then(() =>
    process.stdout.write(`${JSON.stringify({ id })}\n`),
  );
}
