// A user's first call, from a packed tarball through npx, over stdio, against a fake OpenRouter.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFakeOpenRouter, VALID_KEY } from '../test/support/fake-openrouter.js';
import { agreeingSynthesizer } from '../test/support/agreeing-synthesizer.js';

const tarball = process.argv[2]!;
const home = mkdtempSync(path.join(os.tmpdir(), 'plm-user-'));
const fake = await startFakeOpenRouter({ parameters: { 'u/synth': ['structured_outputs', 'response_format'] } });
fake.on('u/a', { answer: 'Use a mutex: two writers race.' });
fake.on('u/b', { answer: 'Use a queue; also a mutex works. 日本語 🎉' });
fake.on('u/synth', agreeingSynthesizer('Merged: a mutex or a queue; 日本語 🎉'));
const transport = new StdioClientTransport({
  command: 'npx',
  args: ['-y', '-p', tarball, 'parallel-llm-mcp'],
  env: {
    PATH: process.env.PATH!,
    HOME: home,
    npm_config_cache: path.join(home, 'npm-cache'),
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_MODELS: 'u/a,u/b',
    PARALLEL_LLM_SYNTHESIZER_MODEL: 'u/synth',
    PARALLEL_LLM_OUTPUT_DIR: path.join(home, 'out'),
  },
  stderr: 'pipe',
});
const client = new Client({ name: 'user-check', version: '1' });
const t0 = Date.now();
await client.connect(transport);
console.log('initialize answered in', Date.now() - t0, 'ms');
const result: any = await client.callTool({ name: 'process_prompt', arguments: { prompt: 'How do I stop two writers racing?' } });
const sc = result.structuredContent;
console.log('status', sc.status, 'answer', JSON.stringify(sc.answer));
console.log('agreement', JSON.stringify(sc.agreement));
console.log('synth request had response_format:', Boolean(fake.requestsFor('u/synth')[0]?.body.response_format));
console.log('text tail:', result.content[0].text.split('\n').slice(-6).join(' | '));
await client.close();
await fake.close();
rmSync(home, { recursive: true, force: true });
