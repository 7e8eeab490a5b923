import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { hostsUnder } from '../support/hosts.js';
import { finished, runBin, spawnBin, userEnv, waitFor } from './support.js';

/**
 * The terminal's clients of the run host, through the installed bin: ask's runs go on in the host
 * unless Ctrl-C stops them, and `runs` and `cancel` see and stop them.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 100 });

afterAll(() => fake.close());

function models(prefix: string, slowMs: number) {
  fake.on(`${prefix}/one`, { answer: `one from ${prefix}`, delayMs: 20 });
  fake.on(`${prefix}/two`, { answer: `two from ${prefix}`, delayMs: slowMs });
  fake.on(`${prefix}/synth`, { answer: `synthesis for ${prefix}`, delayMs: 20 });
  const asked = () => [`${prefix}/one`, `${prefix}/two`, `${prefix}/synth`].map((model) => fake.requestsFor(model).length);
  return { asked, env: { PARALLEL_LLM_MODELS: `${prefix}/one,${prefix}/two`, PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` } };
}

/** `ask` as a child, once its first model has answered (its board says so) and the slow one is being asked. */
async function askMidRun(prefix: string, env: Record<string, string>) {
  const child = spawnBin(['ask', 'the same question'], env);
  let progress = '';
  child.stderr.on('data', (chunk: Buffer) => (progress += chunk.toString('utf8')));
  const exit = finished(child);
  await waitFor(() => progress.includes(`✔ ${prefix}/one answered`) && fake.requestsFor(`${prefix}/two`).length === 1, 10_000);
  return { child, exit };
}

describe('ask and the run host', () => {
  it('stops the run and its billing on Ctrl-C, and the same ask again reuses the saved answer, asking only the other model', async () => {
    const { asked, env } = models('ctrl-c', 2000);
    const serverEnv = userEnv(fake, await tempDir(), env);
    const { child, exit } = await askMidRun('ctrl-c', serverEnv);
    child.kill('SIGINT');
    const stopped = await exit;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('Cancelled: every upstream request was stopped');
    fake.on('ctrl-c/two', { answer: 'two from ctrl-c', delayMs: 20 });
    const again = await runBin(['ask', 'the same question'], serverEnv);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('synthesis for ctrl-c\n');
    expect(again.stderr).toContain('1 answer ($0.0015 of it) reused from before the run was stopped, not paid again.');
    expect(asked()).toEqual([1, 2, 1]);
  }, 20_000);

  it('leaves the run going when ask is ended any other way, and the same ask again gets it for nothing', async () => {
    const { asked, env } = models('ask-killed', 1500);
    const serverEnv = userEnv(fake, await tempDir(), env);
    const { child, exit } = await askMidRun('ask-killed', serverEnv);
    child.kill('SIGTERM');
    await exit;
    const again = await runBin(['ask', 'the same question'], serverEnv);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('synthesis for ask-killed\n');
    expect(again.stderr).toMatch(/Cost: no new cost: this call reused run \S+, which cost/);
    expect(again.stderr).toMatch(/^All 2 models answered; synthesized by ask-killed\/synth\. Reused run \S+, no new cost\.$/m);
    expect(asked()).toEqual([1, 1, 1]);
  }, 20_000);
});

describe('runs and cancel', () => {
  it('lists the run host and its running run, and cancel stops it and its billing', async () => {
    const { asked, env } = models('listed', 30_000);
    const outputDir = await tempDir();
    const serverEnv = userEnv(fake, outputDir, env);
    const { child, exit } = await askMidRun('listed', serverEnv);
    const [host] = await hostsUnder(outputDir);

    const listed = await runBin(['runs'], serverEnv);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`Run host: pid ${host}, version `);
    const row = listed.stdout.split('\n').find((line) => line.includes('the same question'))!;
    expect(row).toMatch(/^(\S+)\s+running\s+\d+\.\d s\s+1\/2\s+\$0\.0015\s+the same question$/);
    const runId = row.split(/\s+/)[0]!;

    const abortedBefore = fake.aborted;
    const cancelled = await runBin(['cancel', runId], serverEnv);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/^Cancelled: every upstream request was stopped/);
    await waitFor(() => fake.aborted === abortedBefore + 1);
    expect((await exit).code).toBe(130);
    expect(child.exitCode).toBe(130);

    const again = await runBin(['cancel', runId], serverEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`run ${runId} is not running: it is cancelled`);
    expect(asked()).toEqual([1, 1, 0]);
  }, 20_000);

  it('says so when no run host is running, and lists the runs from the folders', async () => {
    const { env } = models('no-host-list', 10);
    const outputDir = await tempDir();
    const serverEnv = userEnv(fake, outputDir, { ...env, PARALLEL_LLM_RUN_HOST: 'off' });
    expect((await runBin(['ask', 'q'], serverEnv)).code).toBe(0);
    const listed = await runBin(['runs'], serverEnv);
    expect(listed.stdout).toContain('No run host is running');
    expect(listed.stdout).toMatch(/\s+complete\s+\d+\.\d s\s+2\/2\s+\$0\.0045\s+q\n/);
    expect(await hostsUnder(outputDir)).toEqual([]);
  });
});
