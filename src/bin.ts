#!/usr/bin/env node
// The bin. Node 22+ can cache compiled code between starts, which roughly halves the time
// an MCP client waits for `initialize`; it must be switched on before the app is loaded.
import module from 'node:module';
import v8 from 'node:v8';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// A server (or a terminal command) only relays a few small messages per call to the run host,
// so it keeps V8's young generation at its first size and leaves the optimizing compiler out,
// which keeps it small in memory. The run host, which streams answers, keeps both
// (src/host/connect.ts), and so does a process that runs runs itself (src/host/choose.ts).
if (process.argv[2] !== 'host') v8.setFlagsFromString('--semi-space-growth-factor=1 --no-opt');
await import('./index.js');
