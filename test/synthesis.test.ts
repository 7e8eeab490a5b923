import { describe, expect, it } from 'vitest';
import { buildSynthesisPrompt, fairCaps, type CandidateAnswer } from '../src/prompts/synthesis.js';

/** A small deterministic generator, so the "random" sizes are the same on every run. */
function lcg(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % below;
  };
}

/** Where a real run saves a candidate: a per-user data folder, a run folder, then the file. */
const realisticFile = (index: number, model: string) =>
  `/home/alexandra/.local/share/parallel-llm-mcp/runs/2025-11-21T13-41-07.123Z_1a2b3c4d/candidate-${index}_${model.replace('/', '_')}.md`;

/** The synthesis prompt with its text joined, to be read as one string. */
function joined(...args: Parameters<typeof buildSynthesisPrompt>) {
  const { text, trims } = buildSynthesisPrompt(...args);
  return { text: text.toString(), trims };
}

describe('buildSynthesisPrompt: structure', () => {
  const problem = 'Why does my recursive Fibonacci function overflow the stack for n = 100000?';
  const candidates: CandidateAnswer[] = [
    { model: 'openai/gpt-5-codex', content: 'ANSWER-ONE: use iteration.' },
    { model: 'x-ai/grok-4-fast', content: 'ANSWER-TWO: use memoisation.' },
    { model: 'z-ai/glm-4.6', content: 'ANSWER-THREE: raise the recursion limit.' },
  ];
  const { text, trims } = joined(problem, candidates, 100_000);

  it('opens by calling the model an expert synthesiser and saying how many candidate answers there are', () => {
    const intro = text.slice(0, text.indexOf(problem));
    expect(intro).toMatch(/expert synthesi[sz]er/i);
    expect(intro).toMatch(/\b3\b/);
    expect(intro).toMatch(/candidate/i);
  });

  it('gives the original problem before any candidate', () => {
    const at = text.indexOf(problem);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(text.indexOf(candidates[0]!.model));
  });

  it('labels each candidate with its model id, in the candidates’ order, each followed by its answer', () => {
    let cursor = text.indexOf(problem) + problem.length;
    for (const candidate of candidates) {
      const label = text.indexOf(candidate.model, cursor);
      expect(label).toBeGreaterThan(cursor);
      const body = text.indexOf(candidate.content, label);
      expect(body).toBeGreaterThan(label);
      // Nothing of the next candidate comes between a label and its answer.
      expect(text.slice(label, body)).not.toMatch(/ANSWER-/);
      cursor = body + candidate.content.length;
    }
  });

  it('ends by asking for the single best solution that combines the best parts and resolves conflicts with judgement', () => {
    const lastAnswer = candidates[candidates.length - 1]!.content;
    const task = text.slice(text.indexOf(lastAnswer) + lastAnswer.length);
    expect(task).toMatch(/single best/i);
    expect(task).toMatch(/combin/i);
    expect(task).toMatch(/conflict|disagree/i);
    expect(task).toMatch(/judg(e)?ment/i);
  });

  it('trims nothing when everything fits', () => {
    expect(trims).toEqual([]);
    for (const candidate of candidates) expect(text).toContain(candidate.content);
  });

  it.each([1, 2, 5])('states the number of candidates for %i candidate(s)', (count) => {
    const many = Array.from({ length: count }, (_, i) => ({ model: `m/${i}`, content: `answer ${i}` }));
    const prompt = buildSynthesisPrompt('the problem', many, 100_000).text.toString();
    const intro = prompt.slice(0, prompt.indexOf('the problem'));
    expect(intro).toMatch(new RegExp(`\\b${count}\\b`));
  });

  it('keeps the problem whole, even when it contains characters special to string replacement', () => {
    const tricky = 'Replace $& and $1 with `$$` in C:\\path\\file';
    expect(buildSynthesisPrompt(tricky, candidates, 100_000).text.toString()).toContain(tricky);
  });
});

describe('fairCaps', () => {
  it('keeps every answer whole when they all fit', () => {
    expect(fairCaps([10, 20, 30], 100)).toEqual([10, 20, 30]);
  });

  it('keeps short answers whole and trims the longest to equal caps that use the whole allowance', () => {
    const caps = fairCaps([100, 8000, 200, 5000], 3000);
    expect(caps[0]).toBe(100);
    expect(caps[2]).toBe(200);
    expect(caps[1]).toBe(1350);
    expect(caps[3]).toBe(1350);
    expect(caps.reduce((a, b) => a + b, 0)).toBe(3000);
  });

  it('gives the trimmed answers caps within one character of each other when the allowance does not divide evenly', () => {
    const caps = fairCaps([5000, 5000, 5000], 1000);
    expect(Math.max(...caps) - Math.min(...caps)).toBeLessThanOrEqual(1);
    expect(caps.reduce((a, b) => a + b, 0)).toBe(1000);
  });

  it('never gives more than the allowance, nor more than an answer’s length, nor a trimmed answer less than a whole one', () => {
    const next = lcg(7);
    for (let round = 0; round < 200; round++) {
      const lengths = Array.from({ length: 1 + next(8) }, () => next(20_000));
      const available = next(60_000);
      const caps = fairCaps(lengths, available);
      expect(caps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(available);
      caps.forEach((cap, i) => {
        expect(cap).toBeGreaterThanOrEqual(0);
        expect(cap).toBeLessThanOrEqual(lengths[i]!);
      });
      const trimmedCaps = caps.filter((cap, i) => cap < lengths[i]!);
      const wholeLengths = lengths.filter((length, i) => caps[i] === length);
      if (trimmedCaps.length > 0 && wholeLengths.length > 0) {
        expect(Math.min(...trimmedCaps)).toBeGreaterThanOrEqual(Math.max(...wholeLengths) - 1);
      }
    }
  });

  it('gives nothing when the allowance is negative', () => {
    expect(fairCaps([10, 20], -50)).toEqual([0, 0]);
  });
});

describe('buildSynthesisPrompt: bounded size', () => {
  it('never exceeds maxChars, for many candidate counts, answer sizes and limits', () => {
    const next = lcg(2024);
    for (let round = 0; round < 150; round++) {
      const count = 1 + next(6);
      const candidates = Array.from({ length: count }, (_, i) => ({
        model: `vendor/model-${i}`,
        content: 'x'.repeat(next(5) === 0 ? next(200) : next(80_000)),
        ...(next(2) === 0 ? { file: `/runs/r${round}/candidate-${i + 1}.md` } : {}),
      }));
      const maxChars = 5_000 + next(120_000);
      const prompt = buildSynthesisPrompt(`problem ${round}: ${'p'.repeat(next(2_000))}`, candidates, maxChars);
      expect(prompt.text.length).toBeLessThanOrEqual(maxChars);
    }
  });

  it('never exceeds maxChars when the saved-file paths are as long as real ones', () => {
    const models = ['openai/gpt-5-codex', 'x-ai/grok-4-fast', 'mistralai/codestral-2508'];
    const candidates = models.map((model, i) => ({ model, content: 'y'.repeat(300_000), file: realisticFile(i + 1, model) }));
    const prompt = buildSynthesisPrompt('Review this code.', candidates, 600_000);
    expect(prompt.trims).toHaveLength(3);
    expect(prompt.text.length).toBeLessThanOrEqual(600_000);
  });

  it('fits three 2,000,000-character answers into a 600,000-character prompt while using nearly all of it', () => {
    const candidates = ['a/one', 'b/two', 'c/three'].map((model, i) => ({ model, content: String(i).repeat(2_000_000) }));
    const prompt = buildSynthesisPrompt('Summarise the logs.', candidates, 600_000);
    expect(prompt.text.length).toBeGreaterThan(590_000);
    expect(prompt.text.length).toBeLessThanOrEqual(600_000);
    expect(prompt.trims.map((trim) => trim.model)).toEqual(['a/one', 'b/two', 'c/three']);
  });

  it('marks each trim in the text with the number of characters omitted and the file holding the full answer', () => {
    const file = '/runs/2025-11-21_ab12/candidate-2_b_long.md';
    const long = 'L'.repeat(40_000);
    const candidates = [
      { model: 'a/short', content: 'short answer' },
      { model: 'b/long', content: long, file },
    ];
    const { text, trims } = joined('problem', candidates, 10_000);
    expect(trims).toHaveLength(1);
    const [trim] = trims;
    expect(trim!.originalChars).toBe(40_000);
    const omitted = trim!.originalChars - trim!.keptChars;
    expect(omitted).toBeGreaterThan(0);

    const kept = long.slice(0, trim!.keptChars);
    const at = text.indexOf(kept);
    expect(at).toBeGreaterThan(-1);
    const marker = text.slice(at + kept.length, at + kept.length + 400);
    expect(marker.startsWith('L')).toBe(false);
    expect(marker).toContain(String(omitted));
    expect(marker).toContain(file);
  });

  it('marks an answer held only in part as trimmed, though its held part fits', () => {
    const file = '/runs/2025-11-21_ab12/candidate-1_a_long.md';
    // 12,000 characters held of a 2,000,000-character answer: the rest is only in its file.
    const { text, trims } = joined('problem', [{ model: 'a/long', content: 'H'.repeat(12_000), chars: 2_000_000, file }], 600_000);
    expect(trims).toHaveLength(1);
    const { keptChars, originalChars } = trims[0]!;
    expect(originalChars).toBe(2_000_000);
    expect(keptChars).toBeGreaterThan(11_900);
    expect(text).toContain(
      `${'H'.repeat(keptChars)}\n\n[... trimmed to fit the synthesis budget: ${2_000_000 - keptChars} of 2000000 characters omitted; the full answer is saved in ${file}]`,
    );
  });

  it('marks a trim with the omitted count but names no file when none is given', () => {
    const long = 'M'.repeat(40_000);
    const { text, trims } = joined('problem', [{ model: 'b/long', content: long }], 10_000);
    const omitted = trims[0]!.originalChars - trims[0]!.keptChars;
    const kept = long.slice(0, trims[0]!.keptChars);
    const marker = text.slice(text.indexOf(kept) + kept.length);
    expect(marker).toContain(String(omitted));
    expect(marker).not.toContain('undefined');
    expect(marker).not.toMatch(/\.md\b/);
  });

  it('lists in `trims` exactly the models whose answers were shortened, and leaves the others whole', () => {
    const candidates = [
      { model: 'a/short', content: 'A'.repeat(100) },
      { model: 'b/long', content: 'B'.repeat(50_000) },
      { model: 'c/short', content: 'C'.repeat(300) },
      { model: 'd/longer', content: 'D'.repeat(60_000) },
    ];
    const { text, trims } = joined('problem', candidates, 20_000);
    expect(trims.map((trim) => trim.model)).toEqual(['b/long', 'd/longer']);
    expect(text).toContain('A'.repeat(100));
    expect(text).toContain('C'.repeat(300));
    expect(text).not.toContain('B'.repeat(50_000));
    expect(text).not.toContain('D'.repeat(60_000));
    for (const trim of trims) expect(trim.keptChars).toBeLessThan(trim.originalChars);
  });
});
