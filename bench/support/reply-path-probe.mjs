/**
 * Preloaded by bench/reply-path.ts into every process of the bin (through NODE_OPTIONS, which the
 * run host inherits from the server that starts it): in the run host, notes when each upstream
 * request is made and when its response has ended (undici's diagnostics channels), with the
 * bench's label of the call it belongs to; in the server, when each tool result is written to
 * stdout. Times are absolute (the time origin plus the monotonic clock), so that the bench can
 * set them beside its own. On exit, writes what it noted to REPLY_PATH_DIR/<pid>.json.
 */
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const now = () => performance.timeOrigin + performance.now();
const requests = [];
const replies = [];
const byRequest = new Map();

diagnostics.subscribe('undici:request:create', ({ request }) => {
  const body = String(request.body ?? '');
  const record = { model: /"model":"([^"]*)"/.exec(body)?.[1], call: /reply-path (\S+ \d+-\d+)/.exec(body)?.[1], createdAt: now() };
  byRequest.set(request, record);
  requests.push(record);
});
diagnostics.subscribe('undici:request:trailers', ({ request }) => {
  const record = byRequest.get(request);
  if (record) record.endedAt = now();
});

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('"structuredContent"')) replies.push(now());
  return write(chunk, ...rest);
};

process.on('exit', () => {
  const role = process.argv.includes('host') ? 'host' : 'server';
  writeFileSync(
    path.join(process.env.REPLY_PATH_DIR, `${process.pid}.json`),
    JSON.stringify({ pid: process.pid, role, requests, replies }),
  );
});
