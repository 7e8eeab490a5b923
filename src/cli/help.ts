import { readmePath } from '../version.js';

/** The main help; it names this copy's README, since the package has no web page. */
export const mainHelp = () => `parallel-llm-mcp: ask several LLMs the same question through OpenRouter, get one synthesized answer.

Usage:
  parallel-llm-mcp                 run the stdio MCP server (what MCP clients launch)
  parallel-llm-mcp ask "prompt"    run one prompt from the terminal (or pipe the prompt on stdin)
  parallel-llm-mcp doctor          check the key, the model ids and the output folder
  parallel-llm-mcp runs            the run host and the newest runs (status, time, answers, cost)
  parallel-llm-mcp cancel RUN_ID   stop a run and its billing (its saved answers are kept)
  parallel-llm-mcp view [RUN_ID]   see the runs in a browser: every answer side by side, live
  parallel-llm-mcp serve --http    team mode's server: MCP over HTTP for a team's members (docs/team.md)
  parallel-llm-mcp users ...       team mode's members, tokens and budgets (docs/team.md)
  parallel-llm-mcp usage           team mode's runs, tokens and cost per member
  parallel-llm-mcp --help          this text (also: ask --help, doctor --help, ...)
  parallel-llm-mcp --version       the version

Configuration is read from the environment and from .env in the working folder; only
OPENROUTER_API_KEY is required. Every variable is in docs/configuration.md, beside the README: ${readmePath()}
`;

/** What the server says when started by hand in a terminal, where nobody speaks JSON-RPC to it. */
export const terminalGreeting = (version: string) =>
  `parallel-llm-mcp ${version} is an MCP server: an MCP client starts it and talks JSON-RPC on its stdin and stdout, so here it only waits (Ctrl-C ends it). ` +
  `From a terminal, ask a question with parallel-llm-mcp ask "your question", check the setup with parallel-llm-mcp doctor, and see ${readmePath()} to add it to a client.\n`;

export const ASK_HELP = `Usage: parallel-llm-mcp ask [options] [--] "prompt"
       command | parallel-llm-mcp ask [options]

Sends the prompt to every model in PARALLEL_LLM_MODELS at once, then has the synthesizer
(PARALLEL_LLM_SYNTHESIZER_MODEL) merge their answers. Words after ask are joined into one
prompt; with none, the prompt is read from stdin. Put -- before a prompt that begins with "-".

Live progress goes to stderr, the answer to stdout, and the run folder is named at the end.
Ctrl-C stops the run and its billing. The run executes in the run host, so closing the
terminal does not stop it: the same command again picks it up, paying nothing twice (and
within 10 minutes of its end returns it, at no cost).
Exit codes: 0 answered, 1 no model answered or the call was refused (over its cost ceiling,
a follow-up of an unfinished run), 2 no prompt or a bad option, 130 cancelled.

Options (each sets what process_prompt's argument of the same name sets, for this run only):
  --models a/x,b/y       the candidate models, comma-separated (a model may repeat)
  --synthesizer c/z      the synthesizer, or a comma-separated list tried in order
  --temperature 0.7      sampling temperature, 0 to 2, for every model and the synthesizer
  --max-tokens 16384     max_tokens for every model and the synthesizer
  --strategy judge       synthesize, judge or council: how the answers become one
  --max-cost 0.50        refuse, before any request, a call whose worst case is above this
                         many US dollars (it may lower PARALLEL_LLM_MAX_COST_USD, never raise it)
  --reasoning-effort E   minimal, low, medium or high, for every model and step
  --follow-up-of RUN_ID  a follow-up on a finished run: each model continues its own answer
  --no-agreement         leave out the account of where the models agreed and differed
                         (agreement: false), asked of the synthesizer with its answer
  --fresh                ask anew, even if the same request ran in the last 10 minutes
  --json                 print the structured result (process_prompt's structuredContent,
                         the answers included) on stdout instead of the answer
  -h, --help             this text
`;

export const DOCTOR_HELP = `Usage: parallel-llm-mcp doctor

Checks the setup without asking any model anything: the key (GET /key), every configured
model id (GET /models: retired ids, ids OpenRouter will remove, and the nearest current ones;
an id with a :variant such as :nitro or :free on its base id), the log file if one is set, and
that the output folder can be written. Each check has a 10 s limit. What cannot be checked (an
endpoint that is missing, unreachable or silent; an alias on a list without aliases) is marked ?
and counted in the last line: "N passed, M could not be checked".

Exit codes: 0 nothing wrong found (warnings and unchecked items allowed), 1 something must be
fixed, 2 a bad option.

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

export const VIEW_HELP = `Usage: parallel-llm-mcp view [options] [RUN_ID]

Shows the runs in a browser: the runs list (newest first; status, time, models answered, cost,
the prompt's first line; filter by text and status) and a page per run with each model's answer
side by side, the synthesis (or the judge's choice, or the council's rankings), live while the
run goes. With RUN_ID it opens that run's page.

The pages are served on 127.0.0.1 only, on a free port, under a random token (any other path is
a 404); the URL is always printed, and opened in the browser where there is one. Read-only: it
changes nothing, starts no run and no run host. It reads the output folder the server uses
(PARALLEL_LLM_OUTPUT_DIR) and stays in the foreground until Ctrl-C.

Exit codes: 0 stopped with Ctrl-C, 1 no such run, 2 a bad option.

Options:
  --no-open    print the URL without opening a browser
  -h, --help   this text
`;
