#!/usr/bin/env node
// The bin. Node 22+ can cache compiled code between starts, which roughly halves the time
// an MCP client waits for `initialize`; it must be switched on before the app is loaded.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./index.js');
