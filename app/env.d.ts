/// <reference types="@remix-run/dev/dist/modules" />

import "@remix-run/node";

declare module "@remix-run/node" {
  // Types loader data as single fetch delivers it (turbo-stream, not JSON).
  interface Future {
    v3_singleFetch: true;
  }
}
