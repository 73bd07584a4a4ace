// Every call the app makes to its API, one `defineCall` each: see "Adding a call" in docs/calls.md.
export {};
