#!/usr/bin/env node
// The bin. Node 22+ can cache compiled code between starts, which roughly halves the time
// an MCP client waits for `initialize`; it must be switched on before the app is loaded.
import module from 'node:module';
import { useRuntimeFlags } from './host/runtime-flags.js';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// Every process but the run host starts as a relay; one that executes runs itself changes its flags then.
if (process.argv[2] !== 'host') useRuntimeFlags('relay');
await import('./index.js');
