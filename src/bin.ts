#!/usr/bin/env node
// The bin. Node 22+ can cache compiled code between starts, which roughly halves the time
// an MCP client waits for `initialize`; it must be switched on before the app is loaded.
import module from 'node:module';
import v8 from 'node:v8';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// A server (or a terminal command) relays small messages: its young generation need not grow
// past V8's first 1 MiB semi-space, which spares it 6 MiB resident (bench/RESULTS.md). The run
// host, which streams answers, gets its own size from its command line (src/host/connect.ts).
if (process.argv[2] !== 'host') v8.setFlagsFromString('--semi-space-growth-factor=1');
await import('./index.js');
