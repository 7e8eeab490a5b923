export const HELP = `parallel-llm-mcp: ask several LLMs the same question through OpenRouter, get one synthesized answer.

Usage:
  parallel-llm-mcp                 run the stdio MCP server (what MCP clients launch)
  parallel-llm-mcp ask "prompt"    run one prompt from the terminal (or pipe the prompt on stdin)
  parallel-llm-mcp doctor          check the key, the model ids and the output folder
  parallel-llm-mcp --help          this text
  parallel-llm-mcp --version       the version

ask prints live progress on stderr and the answer on stdout; it exits 1 when no model answered.
Configuration is read from the environment; only OPENROUTER_API_KEY is required.
See the README for every variable: https://www.npmjs.com/package/parallel-llm-mcp
`;
