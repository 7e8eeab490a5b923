/**
 * The fake OpenRouter over TLS, meant to run inside the bench's network namespace:
 *
 *   ip netns exec NS node --import tsx bench/support/tls-fake.ts HOST KEY.pem CERT.pem DELAY_MS
 *
 * Every model answers, streamed, after DELAY_MS of server time. Beside the fake it opens
 * a plain TCP echo port on HOST, so the bench can measure the round trip across the
 * simulated link without touching the fake's counters.
 *
 * Protocol on stdout, one JSON object a line: first {url, echoPort}; then, for each line
 * "counters" read on stdin, the fake's counters. When stdin closes (the bench is done,
 * or died) it prints the counters a last time and exits.
 */
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { startFakeOpenRouter } from '../../test/support/fake-openrouter.js';

const [host, keyPath, certPath, delay] = process.argv.slice(2);
if (!host || !keyPath || !certPath) {
  process.stderr.write('usage: tls-fake.ts HOST KEY.pem CERT.pem [DELAY_MS]\n');
  process.exit(2);
}
const delayMs = Number(delay ?? 50);

const fake = await startFakeOpenRouter({ host, tls: { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') } });
fake.otherwise({ answer: 'A short answer from the fake upstream, streamed in a few chunks.', delayMs, chunks: 4 });

const echo = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.pipe(socket);
});
await new Promise<void>((resolve) => echo.listen(0, host, resolve));

const counters = () => ({
  connections: fake.connections,
  tlsHandshakes: fake.tlsHandshakes,
  requests: fake.requests.length,
  maxInFlight: fake.maxInFlight,
  aborted: fake.aborted,
});
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

say({ url: fake.url, echoPort: (echo.address() as AddressInfo).port });

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'counters') say(counters());
});
lines.on('close', () => {
  say(counters());
  echo.close();
  void fake.close().then(() => process.exit(0));
});
