import { describe, expect, it } from 'vitest';
import { anonymise, type IndexedAnswer, type ShownCandidate } from '../src/prompts/anonymise.js';
import { buildCouncilSynthesisPrompt, buildRankingPrompt } from '../src/prompts/council.js';
import { aggregateRankings, parseRanking, type RankerVerdict } from '../src/prompts/ranking.js';

const problem = 'Which sorting algorithm suits a nearly sorted array of 10^7 integers?';
const runId = '2026-11-24T10-00-00.000Z_c0ffee00';
// Self-MoA: the same model twice, each its own candidate.
const answers: IndexedAnswer[] = ['openai/gpt-5', 'openai/gpt-5', 'google/gemini-3-pro', 'z-ai/glm-4.6'].map((model, index) => ({
  index,
  model,
  content: `ANSWER-${index}: insertion sort, timsort or similar (${index}).`,
}));
const letterOf = (index: number) => anonymise(runId, answers).find((answer) => answer.index === index)!.label;

describe('buildRankingPrompt', () => {
  it('shows a ranker every other answer, never its own, and no model name', () => {
    for (const ranker of [0, 1, 2, 3]) {
      const prompt = buildRankingPrompt(problem, answers, ranker, runId, 100_000);
      expect(String(prompt.text)).not.toContain(`ANSWER-${ranker}`);
      for (const other of answers.filter((answer) => answer.index !== ranker)) expect(String(prompt.text)).toContain(other.content);
      expect(String(prompt.text)).not.toMatch(/openai|gpt|gemini|google|glm|z-ai/i);
      expect(prompt.shown.map((shown) => shown.index).sort()).toEqual([0, 1, 2, 3].filter((index) => index !== ranker));
    }
  });

  it('shows the repeat of the ranker’s own model: only its own answer is left out (Self-MoA)', () => {
    const prompt = buildRankingPrompt(problem, answers, 0, runId, 100_000);
    expect(prompt.shown.find((shown) => shown.index === 1)).toMatchObject({ model: 'openai/gpt-5' });
  });

  it('uses the run’s letters for every ranker, each in an order of its own, the same every time', () => {
    const orders = new Set<string>();
    for (const ranker of [0, 1, 2, 3]) {
      const prompt = buildRankingPrompt(problem, answers, ranker, runId, 100_000);
      for (const shown of prompt.shown) expect(shown.label).toBe(letterOf(shown.index));
      expect(buildRankingPrompt(problem, answers, ranker, runId, 100_000)).toEqual(prompt);
      orders.add(prompt.shown.map((shown) => shown.label).join(''));
    }
    expect([...orders].some((order) => order !== [...order].sort().join(''))).toBe(true);
  });

  it('asks for a closing RANKING line without suggesting an order', () => {
    const { text } = buildRankingPrompt(problem, answers, 2, runId, 100_000);
    expect(text.toString()).toMatch(/^RANKING: <letter> > <letter> > \.\.\.$/m);
  });

  it('stays within its bound', () => {
    const long = answers.map((answer) => ({ ...answer, content: answer.content.repeat(2000) }));
    const prompt = buildRankingPrompt(problem, long, 1, runId, 25_000);
    expect(prompt.text.length).toBeLessThanOrEqual(25_000);
    expect(prompt.trims).toHaveLength(3);
  });
});

describe('parseRanking', () => {
  const shown: ShownCandidate[] = ['A', 'C', 'D'].map((label, i) => ({ label, index: [5, 6, 7][i]!, model: `m/${i}` }));

  it.each([
    ['the asked format', 'A is thin. C is right. D is wrong.\nRANKING: C > A > D'],
    ['markdown and lower case', '**Final ranking:** c > a > d'],
    ['commas and the word Candidate', 'RANKING: Candidate C, Candidate A, Candidate D'],
    ['a numbered list under the line', 'Evaluations...\n\nFINAL RANKING:\n1. Candidate C\n2. Candidate A\n3. Candidate D\n\nThanks.'],
    ['bullets and parentheses', 'Ranking:\n- (C)\n- (A)\n- (D)'],
  ])('reads %s', (_, reply) => {
    expect(parseRanking(reply, shown)).toEqual({ order: [6, 5, 7], warnings: [] });
  });

  it('takes the last RANKING line, after any mention in the evaluation', () => {
    expect(parseRanking('My ranking: D > A first impressions.\n...\nRANKING: A > C > D', shown).order).toEqual([5, 6, 7]);
  });

  it('leaves out unknown letters and repeats, and names the candidates a partial ranking forgot', () => {
    const ranking = parseRanking('RANKING: C > B > C > A', shown);
    expect(ranking.order).toEqual([6, 5]);
    expect(ranking.warnings).toEqual([
      expect.stringMatching(/"B".*\(A, C, D\)/),
      expect.stringMatching(/Candidate C is ranked twice/),
      expect.stringMatching(/leaves out Candidate D/),
    ]);
  });

  it('gives an empty ranking, with a warning, when there is none to read', () => {
    expect(parseRanking('They are all fine.', shown)).toEqual({ order: [], warnings: ['no RANKING line in the reply'] });
    expect(parseRanking('RANKING: none of them', shown).order).toEqual([]);
  });
});

describe('aggregateRankings', () => {
  const candidates: ShownCandidate[] = ['A', 'B', 'C'].map((label, index) => ({ label, index, model: `m/${label}` }));

  it('averages Borda points over the rankers that saw each candidate', () => {
    const verdicts: RankerVerdict[] = [
      { ranker: 0, shown: [1, 2], order: [2, 1] },
      { ranker: 1, shown: [0, 2], order: [2, 0] },
      { ranker: 2, shown: [0, 1], order: [0, 1] },
    ];
    expect(aggregateRankings(verdicts, candidates)).toEqual([
      { label: 'C', index: 2, model: 'm/C', score: 1, rankers: 2, firsts: 2 },
      { label: 'A', index: 0, model: 'm/A', score: 0.5, rankers: 2, firsts: 1 },
      { label: 'B', index: 1, model: 'm/B', score: 0, rankers: 2, firsts: 0 },
    ]);
  });

  it('counts no ranker whose ranking could not be read, and gives a candidate nobody ranked a score of 0', () => {
    const verdicts: RankerVerdict[] = [
      { ranker: 0, shown: [1, 2], order: [] },
      { ranker: 1, shown: [0, 2], order: [0, 2] },
    ];
    const ranking = aggregateRankings(verdicts, candidates);
    expect(ranking.map((entry) => [entry.label, entry.score, entry.rankers])).toEqual([
      ['A', 1, 1],
      ['B', 0, 0],
      ['C', 0, 1],
    ]);
  });

  it('gives a candidate a ranker left out no points from that ranker', () => {
    const four = [...candidates, { label: 'D', index: 3, model: 'm/D' }];
    const ranking = aggregateRankings([{ ranker: 3, shown: [0, 1, 2], order: [1] }], four);
    expect(ranking.find((entry) => entry.label === 'B')!.score).toBe(1);
    expect(ranking.find((entry) => entry.label === 'A')).toMatchObject({ score: 0, rankers: 1 });
  });

  it('breaks a tie by first places, then by letter (Z before AA)', () => {
    const many = [
      { label: 'AA', index: 26, model: 'm/AA' },
      { label: 'Z', index: 25, model: 'm/Z' },
    ];
    expect(aggregateRankings([], many).map((entry) => entry.label)).toEqual(['Z', 'AA']);
  });
});

describe('buildCouncilSynthesisPrompt', () => {
  const ranking = aggregateRankings(
    [
      { ranker: 0, shown: [1, 2, 3], order: [2, 1, 3] },
      { ranker: 1, shown: [0, 2, 3], order: [2, 0, 3] },
    ],
    anonymise(runId, answers).map(({ label, index, model }) => ({ label, index, model })),
  );
  const prompt = buildCouncilSynthesisPrompt(problem, answers, ranking, runId, 100_000);

  it('shows every answer with the letters the rankers saw, and no model name', () => {
    for (const answer of answers) expect(String(prompt.text)).toContain(`### Candidate ${letterOf(answer.index)}\n\n${answer.content}`);
    expect(String(prompt.text)).not.toMatch(/openai|gpt|gemini|google|glm|z-ai/i);
  });

  it('gives the combined ranking by letter, best first, after the answers and before the task', () => {
    const section = String(prompt.text).slice(String(prompt.text).indexOf('## Peer ranking'), String(prompt.text).indexOf('## Your task'));
    expect(String(prompt.text).indexOf('## Peer ranking')).toBeGreaterThan(String(prompt.text).indexOf('ANSWER-3'));
    expect(section).toContain(`1. Candidate ${letterOf(2)}: score 1.00 (ranked by 2 reviewers, first for 2)`);
    expect(section.split('\n').filter((line) => /^\d\. Candidate/.test(line))).toHaveLength(4);
  });

  it('asks to merge with the ranking in view while judging each claim on its merits', () => {
    const task = String(prompt.text).slice(String(prompt.text).indexOf('## Your task'));
    expect(task).toMatch(/single best solution/);
    expect(task).toMatch(/ranked higher/);
    expect(task).toMatch(/on its merits/);
  });
});
