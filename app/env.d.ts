/// <reference types="@remix-run/dev/dist/modules" />

import "@remix-run/node";

declare module "@remix-run/node" {
  // Types loader data as single fetch delivers it (turbo-stream, not JSON).
  interface Future {
    v3_singleFetch: true;
  }
  // Set by server/app.ts; absent under `remix-serve`, which passes no load context.
  interface AppLoadContext {
    cspNonce?: string;
  }
}
