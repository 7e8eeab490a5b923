import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The host side of MCP Apps for the browser tests, built on the extension's own AppBridge: the
 * page in a sandboxed frame (scripts only, an opaque origin, as hosts give it), its tool calls
 * relayed to the test's MCP client (window.hostCallTool, given by the test), then the tool's
 * input and result handed to it, as a host does after a call.
 */
declare global {
  interface Window {
    hostCallTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    showApp(html: string, theme: 'light' | 'dark', input: Record<string, unknown>, result: CallToolResult): Promise<void>;
    toolCalls: string[];
  }
}

window.toolCalls = [];
window.showApp = async (html, theme, input, result) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'display:block;width:100%;height:100vh;border:0';
  document.body.style.margin = '0';
  document.body.append(frame);
  const bridge = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { serverTools: {}, openLinks: {} },
    { hostContext: { theme, displayMode: 'inline' } },
  );
  bridge.oncalltool = (params) => {
    window.toolCalls.push(params.name);
    return window.hostCallTool(params);
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
};
