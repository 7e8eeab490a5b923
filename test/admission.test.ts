import { describe, expect, it } from 'vitest';
import type { Prices } from '../src/openrouter/price-catalog.js';
import { err, ok, type Result } from '../src/result.js';
import { admitter, type Reserve } from '../src/run/admission.js';
import { worstCase, type WorstCase } from '../src/run/cost.js';
import type { RunRequest } from '../src/run/request.js';
import type { StartRefusal } from '../src/run/start-refusal.js';
import { ROUND_PRICES, plan } from './support/cost-plans.js';

/* The request of plan(): its worst case is $0.062, so a $0.1 ceiling holds it and a $0.03 one does not. */
const REQUEST: RunRequest = {
  prompt: 'x'.repeat(3000),
  models: ['a/cheap', 'b/dear'],
  synthesizers: ['s/synth'],
  temperature: 0.7,
  maxTokens: 1000,
  strategy: 'synthesize',
  agreement: false,
};
const WORST = worstCase(plan(), ROUND_PRICES);
const PRICES: Prices = { table: ROUND_PRICES, fetchedAt: '2026-12-07T10:00:00.000Z', ageMs: 1500 };
const UNAVAILABLE = { kind: 'prices_unavailable' as const, message: 'GET /models answered 503', advice: 'try again in a minute' };
const WORST_RECORD = expect.objectContaining({ total_usd: expect.closeTo(0.062, 9), prices_fetched_at: PRICES.fetchedAt });

/** Admits REQUEST as a new run under `ceilingUsd`, with prices that can (or cannot) be read, and a budget that holds when given. */
async function admitFresh(ceilingUsd: number | undefined, options: { prices: boolean; budget?: Result<void, StartRefusal> }) {
  const asked: string[] = [];
  const held: (WorstCase | undefined)[] = [];
  const reserve: Reserve = async (runId, _request, worst) => {
    expect(runId).toBe('run-1');
    held.push(worst);
    return options.budget!;
  };
  const admit = admitter(
    {
      prices: {
        async prices() {
          asked.push('prices');
          return options.prices ? ok(PRICES) : err(UNAVAILABLE);
        },
        atHand() {
          asked.push('atHand');
          return options.prices ? PRICES : undefined;
        },
      },
      maxPromptChars: 100_000,
      synthesisMaxChars: 600_000,
      ...(options.budget ? { reserve } : {}),
    },
    { stored: undefined, live: () => undefined },
    100_000,
  );
  const admitted = await admit(REQUEST, ceilingUsd).fresh('run-1');
  return { admitted, asked, held };
}

describe('admitting a new run without a budget', () => {
  it('never waits for prices without a ceiling, and records the worst case when they are at hand', async () => {
    expect(await admitFresh(undefined, { prices: true })).toEqual({
      admitted: ok({ cost: { worst_case: WORST_RECORD }, warnings: [] }),
      asked: ['atHand'],
      held: [],
    });
    expect((await admitFresh(undefined, { prices: false })).admitted).toEqual(ok({ cost: {}, warnings: [] }));
  });

  it('under a ceiling, waits for prices and refuses when they cannot be read, saying why', async () => {
    const { admitted, asked } = await admitFresh(0.1, { prices: false });
    expect(admitted).toEqual(
      err({ kind: 'prices_unavailable', ceiling_usd: 0.1, message: UNAVAILABLE.message, advice: UNAVAILABLE.advice }),
    );
    expect(asked).toEqual(['prices']);
  });

  it('refuses a worst case over the ceiling, and records the ceiling beside one that fits', async () => {
    expect((await admitFresh(0.03, { prices: true })).admitted).toMatchObject(
      err({ kind: 'over_ceiling', ceiling_usd: 0.03, worst_case: WORST_RECORD }),
    );
    expect((await admitFresh(0.1, { prices: true })).admitted).toEqual(
      ok({ cost: { ceiling_usd: 0.1, worst_case: WORST_RECORD }, warnings: [] }),
    );
  });
});

describe('admitting a new run under a budget', () => {
  const holds = ok(undefined);

  it('holds the worst case, waiting for prices even without a ceiling', async () => {
    expect(await admitFresh(undefined, { prices: true, budget: holds })).toEqual({
      admitted: ok({ cost: { worst_case: WORST_RECORD }, warnings: [] }),
      asked: ['prices'],
      held: [WORST],
    });
  });

  it('holds an unknown worst case when prices cannot be read and no ceiling is set', async () => {
    const { admitted, held } = await admitFresh(undefined, { prices: false, budget: holds });
    expect(admitted).toEqual(ok({ cost: {}, warnings: [] }));
    expect(held).toEqual([undefined]);
  });

  it('checks the ceiling before the budget: a refusal holds nothing', async () => {
    const unreadable = await admitFresh(0.1, { prices: false, budget: holds });
    expect(unreadable.admitted).toEqual(
      err({ kind: 'prices_unavailable', ceiling_usd: 0.1, message: UNAVAILABLE.message, advice: UNAVAILABLE.advice }),
    );
    const over = await admitFresh(0.03, { prices: true, budget: holds });
    expect(over.admitted).toMatchObject(err({ kind: 'over_ceiling', ceiling_usd: 0.03 }));
    expect([...unreadable.held, ...over.held]).toEqual([]);
  });

  it('holds what fits under the ceiling and records both', async () => {
    const { admitted, held } = await admitFresh(0.1, { prices: true, budget: holds });
    expect(admitted).toEqual(ok({ cost: { ceiling_usd: 0.1, worst_case: WORST_RECORD }, warnings: [] }));
    expect(held).toEqual([WORST]);
  });

  it("gives the budget's refusal as it is, with prices or without", async () => {
    const refused = err({ kind: 'budget' as const, message: 'over budget: $0.01 of $5 remains until 2026-12-08' });
    expect((await admitFresh(0.1, { prices: true, budget: refused })).admitted).toEqual(refused);
    expect((await admitFresh(undefined, { prices: false, budget: refused })).admitted).toEqual(refused);
  });
});
