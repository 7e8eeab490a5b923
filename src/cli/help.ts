/** package.json's homepage: where a user who started us through npx finds the README. */
export const HOMEPAGE = 'https://github.com/parallel-llm-mcp/parallel-llm-mcp#readme';

export const HELP = `parallel-llm-mcp: ask several LLMs the same question through OpenRouter, get one synthesized answer.

Usage:
  parallel-llm-mcp                 run the stdio MCP server (what MCP clients launch)
  parallel-llm-mcp ask "prompt"    run one prompt from the terminal (or pipe the prompt on stdin)
  parallel-llm-mcp doctor          check the key, the model ids and the output folder
  parallel-llm-mcp runs            the run host and the newest runs (status, time, answers, cost)
  parallel-llm-mcp cancel RUN_ID   stop a run and its billing (its saved answers are kept)
  parallel-llm-mcp --help          this text (also: ask --help, doctor --help, ...)
  parallel-llm-mcp --version       the version

Configuration is read from the environment; only OPENROUTER_API_KEY is required.
Every variable is described in the README: ${HOMEPAGE}
`;

export const ASK_HELP = `Usage: parallel-llm-mcp ask [options] [--] "prompt"
       command | parallel-llm-mcp ask

Sends the prompt to every model in PARALLEL_LLM_MODELS at once, then has the synthesizer
(PARALLEL_LLM_SYNTHESIZER_MODEL) merge their answers. Words after ask are joined into one
prompt; with none, the prompt is read from stdin. Put -- before a prompt that begins with "-".

Live progress goes to stderr, the answer to stdout, and the run folder is named at the end.
Ctrl-C stops the run and its billing. The run executes in the run host, so closing the
terminal does not stop it: the same command again picks it up, paying nothing twice.
Exit codes: 0 answered, 1 no model answered or the call was refused (cost, follow-up),
2 no prompt or a bad option, 130 cancelled.

Options (each as process_prompt takes it; the environment's setting otherwise):
  --strategy S               synthesize, judge or council (PARALLEL_LLM_STRATEGY)
  --max-cost USD             refuse, before any request, a call whose worst case is above this
                             (it may lower PARALLEL_LLM_MAX_COST_USD, never raise it)
  --reasoning-effort E       minimal, low, medium or high (PARALLEL_LLM_REASONING_EFFORT)
  --follow-up-of RUN_ID      a follow-up on a finished run: each model continues its own answer
  -h, --help                 this text
`;

export const DOCTOR_HELP = `Usage: parallel-llm-mcp doctor

Checks the setup without asking any model anything: the key (GET /key), every configured
model id (GET /models: retired ids, ids OpenRouter will remove, and the nearest current ones),
and that the output folder can be written. Each check has a 10 s limit. A server without /key
or /models (another OpenAI-compatible API) skips that check.

Exit codes: 0 all checks passed (warnings allowed), 1 something must be fixed, 2 a bad option.

Options:
  -h, --help   this text
`;

export const RUNS_HELP = `Usage: parallel-llm-mcp runs

Shows the run host (the background process that executes every run, started on demand by the
first MCP server or ask that needs it, gone when idle) and the newest runs in the output folder:
id, status, time, how many models answered, cost so far, and the prompt's first line.

Options:
  -h, --help   this text
`;

export const CANCEL_HELP = `Usage: parallel-llm-mcp cancel RUN_ID

Stops a running run: every request to a model is aborted, and nothing more is billed. The
answers that had arrived stay saved; the same request again reuses them and asks only the rest.
Closing an MCP client never stops a run; this (or Ctrl-C in ask, or the client's own cancel) does.

Exit codes: 0 stopped, 1 not running (or not found), 2 a bad argument.

Options:
  -h, --help   this text
`;
