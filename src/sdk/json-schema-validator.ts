/**
 * Stands in, in the bundle only (scripts/build.ts), for the MCP SDK's Ajv-backed JSON Schema
 * validator, which the SDK builds for every Server and Client it makes. It validates elicitation
 * answers and tools' output schemas as a client reads them: this package never elicits, and its
 * clients (of the run host) read tools that declare no output schema. Ajv and its
 * formats would add megabytes to every process (the server and the run host) for nothing.
 */
export class AjvJsonSchemaValidator {
  getValidator(): never {
    throw new Error('JSON Schema validation is not used by parallel-llm-mcp: the bundle leaves Ajv out');
  }
}
