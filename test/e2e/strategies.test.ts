import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agreeingReply } from '../support/agreeing-synthesizer.js';
import { startFakeOpenRouter, type Behaviour, type FakeOpenRouter, type RecordedRequest } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { hostsUnder } from '../support/hosts.js';
import { pricing } from '../support/price-rows.js';
import { connect, finished, processPrompt, spawnBin, userEnv, type Finished } from './support.js';

/**
 * Strategies, the cost ceiling and follow-ups through the installed bin and the run host it
 * starts: the request crosses the host's socket, the refusal comes back over it.
 */
let fake: FakeOpenRouter;

beforeAll(async () => {
  fake = await startFakeOpenRouter({
    keepAliveCommentMs: 100,
    prices: {
      'e2e/one': pricing('0.000001', '0.000002'),
      'e2e/two': pricing('0.00001', '0.00003'),
      'e2e/three': pricing('0.000002', '0.000004'),
      'e2e/synth': pricing('0.000002', '0.00001'),
    },
  });
  fake.on('e2e/one', answerOrRank('one says 5'));
  fake.on('e2e/two', answerOrRank('two says 4'));
  fake.on('e2e/three', answerOrRank('three says 3'));
  fake.on('e2e/synth', {
    fromRequest: (request) => {
      const letter = /### Candidate ([A-Z])\n\ntwo says 4/.exec(promptOf(request))?.[1];
      if (letter) return { answer: `CHOICE: ${letter}\nREASON: Only it adds up.\nANSWER:\nIt is 4.` };
      return { answer: agreeingReply('The answer is 4, still.', request) };
    },
  });
});
afterAll(async () => {
  await fake.close();
});

/** A candidate's answer, or, asked to rank (a council), the letters it was shown in their order. */
function answerOrRank(answer: string): Behaviour {
  return {
    fromRequest: (request) => {
      const letters = [...promptOf(request).matchAll(/### Candidate ([A-Z])\n/g)].map((match) => match[1]);
      return { answer: promptOf(request).includes('RANKING:') ? `RANKING: ${letters.join(' > ')}` : answer };
    },
  };
}

const promptOf = (request: RecordedRequest) =>
  (request.body.messages as Array<{ content: string }>).map((message) => message.content).join('\n');

async function ask(args: string[], outputDir: string): Promise<Finished> {
  const child = spawnBin(['ask', ...args], userEnv(fake, outputDir));
  const done = finished(child);
  child.stdin.end();
  return done;
}

describe('ask through the run host', () => {
  it('--strategy judge prints the chosen answer, and the first line names the chosen model and the reason', async () => {
    const outputDir = await tempDir();
    const before = fake.requestsFor('e2e/synth').length;
    const result = await ask(['--strategy', 'judge', 'What is 2+2?'], outputDir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('It is 4.\n');
    expect(result.stderr).toContain(
      'All 3 models answered; judged by e2e/synth, who chose candidate 2 (e2e/two): Only it adds up. Cost $0.0060.',
    );
    const judged = promptOf(fake.requestsFor('e2e/synth')[before]!);
    for (const model of ['e2e/one', 'e2e/two', 'e2e/three']) expect(judged).not.toContain(model);

    const [host] = await hostsUnder(outputDir);
    expect(host).toBeDefined();
    const [folder] = (await readdir(outputDir)).filter((name) => /^\d{4}-/.test(name));
    const record = JSON.parse(await readFile(path.join(outputDir, folder!, 'run.json'), 'utf8'));
    expect(record).toMatchObject({
      owner: { pid: host },
      settings: { strategy: 'judge' },
      synthesis: { verdict: { choice_model: 'e2e/two', reason: 'Only it adds up.' } },
    });
  });

  it('--strategy council shows each model ranking the others on the board, and each ranking in the footer', async () => {
    const result = await ask(['--strategy', 'council', 'What is 2+2?'], await tempDir());
    expect(result.code).toBe(0);
    for (const model of ['e2e/one', 'e2e/two', 'e2e/three'])
      expect(result.stderr).toMatch(new RegExp(`\\] ✔ ${model} ranked the others' answers\n`));
    expect(result.stderr).toContain('All 3 models answered; ranked by each other, then synthesized by e2e/synth.');
    expect(result.stderr).toMatch(/- candidate 1 \(e2e\/one\): candidate \d \(e2e\/\w+\) > candidate \d \(e2e\/\w+\)\n/);
  });

  it('prints where the models agreed and differed on stderr, the answer alone on stdout; --no-agreement leaves it out', async () => {
    const outputDir = await tempDir();
    const result = await ask(['What is 2+2?'], outputDir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The answer is 4, still.\n');
    expect(result.stderr).toContain(
      '\nAgreed: the problem is real.\nDiffered: the fix (e2e/one: patch it; e2e/two and e2e/three: rewrite it)',
    );
    const off = await ask(['--no-agreement', 'What is 2+2?'], outputDir);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe('The answer is 4, still.\n');
    expect(off.stderr).not.toContain('Agreed:');
    expect(promptOf(fake.requestsFor('e2e/synth').at(-1)!)).not.toContain('<<<AGREEMENT>>>');
  });

  it('--max-cost refuses a call whose worst case is above it: exit 1, the estimate on stderr, no request, no run folder', async () => {
    const outputDir = await tempDir();
    const before = fake.requests.length;
    const result = await ask(['--max-cost', '0.001', 'What is 2+2?'], outputDir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^Refused before any request: the worst case is \$\d\.\d+, above the cost ceiling of \$0\.001\.\nWorst case per model: e2e\/two /,
    );
    expect(fake.requests.length).toBe(before);
    expect((await readdir(outputDir)).filter((name) => /^\d{4}-/.test(name))).toEqual([]);
  });

  it('--follow-up-of sends each model its own earlier turn, and --strategy with a bad value is refused naming the flag', async () => {
    const outputDir = await tempDir();
    const first = await ask(['What is 2+2?'], outputDir);
    const runId = /Run (\S+), saved in/.exec(first.stderr)![1]!;
    const before = fake.requestsFor('e2e/one').length;
    const second = await ask(['--follow-up-of', runId, 'And 2+3?'], outputDir);
    expect(second.code).toBe(0);
    expect(fake.requestsFor('e2e/one')[before]!.body.messages).toEqual([
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: 'one says 5' },
      { role: 'user', content: expect.stringMatching(/The answer is 4, still\.\n\n---\n\nAnd 2\+3\?$/) },
    ]);
    const bad = await ask(['--strategy', 'vote', 'q'], outputDir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'parallel-llm-mcp ask: --strategy "vote": strategy must be one of synthesize, judge, council (got "vote"); see parallel-llm-mcp ask --help\n',
    );
  });
});

describe('process_prompt through the MCP server and the run host', () => {
  it('returns where the models agreed and differed, by model id, in structuredContent and the text after the answer', async () => {
    const session = await connect(userEnv(fake, await tempDir()));
    try {
      const { result, text, data } = await processPrompt(session, { prompt: 'What is 3+3?' });
      expect(result.isError).toBeFalsy();
      expect(data!.answer).toBe('The answer is 4, still.');
      expect(data!.agreement).toEqual({
        consensus: ['the problem is real'],
        disagreements: [
          {
            point: 'the fix',
            positions: [
              { models: ['e2e/one'], view: 'patch it' },
              { models: ['e2e/two', 'e2e/three'], view: 'rewrite it' },
            ],
            resolution: 'patch it now, rewrite later',
          },
        ],
        unique: [{ model: 'e2e/three', point: 'an edge case', kept: true }],
      });
      expect(text).toContain('The answer is 4, still.\n\nAgreed: the problem is real.\nDiffered: the fix');
      expect(text).toContain('Only one model: e2e/three: an edge case (kept).');
    } finally {
      await session.close();
    }
  });

  it('refuses over the ceiling with an isError result that gives the estimate, and sends nothing upstream', async () => {
    const session = await connect(userEnv(fake, await tempDir(), { PARALLEL_LLM_MAX_COST_USD: '0.001' }));
    try {
      const before = fake.requests.length;
      const { result, text } = await processPrompt(session, { prompt: 'What is 2+2?', strategy: 'council' });
      expect(result.isError).toBe(true);
      expect(text).toMatch(
        /^Refused before any request: the worst case is .*above the cost ceiling of \$0\.001\.\nWorst case per model: e2e\/two \$[\d.]+ \(2 steps\)/,
      );
      expect(fake.requests.length).toBe(before);
    } finally {
      await session.close();
    }
  });
});
