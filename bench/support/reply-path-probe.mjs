/**
 * Preloaded into our server by bench/reply-path.ts (`node --import <this> bin.js`): notes when
 * each upstream request is made and when its response has ended (undici's diagnostics
 * channels), and when a tool result is written to stdout. Times are absolute (the time origin
 * plus the monotonic clock), so the bench can set them beside its own. On exit, prints one
 * line `REPLY-PATH <json>` on stderr: for each call in order, its requests (model, made,
 * ended) and when its result was written. Calls must run one at a time.
 */
import diagnostics from 'node:diagnostics_channel';

const now = () => performance.timeOrigin + performance.now();
const calls = [];
let current;
const requests = new Map();

diagnostics.subscribe('undici:request:create', ({ request }) => {
  // Calls run one at a time: a request after a reply opens the next call's record.
  if (!current || current.repliedAt !== undefined) calls.push((current = { requests: [] }));
  const record = { model: /"model":"([^"]*)"/.exec(String(request.body ?? ''))?.[1], createdAt: now() };
  requests.set(request, record);
  current.requests.push(record);
});
diagnostics.subscribe('undici:request:trailers', ({ request }) => {
  const record = requests.get(request);
  if (record) record.endedAt = now();
});

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (current && current.repliedAt === undefined && String(chunk).includes('"structuredContent"')) current.repliedAt = now();
  return write(chunk, ...rest);
};

process.on('exit', () => process.stderr.write(`REPLY-PATH ${JSON.stringify(calls)}\n`));
