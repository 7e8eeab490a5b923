// Types for the two files of undici that src/openrouter/undici.ts loads on their own. Loaded so,
// an Agent lacks the request(), stream() and other methods undici's index adds to every
// dispatcher, though its type names them: requests go through undici.ts's `request`.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  export default function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
