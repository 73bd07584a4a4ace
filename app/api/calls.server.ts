/**
 * Every call this app makes to its API, one `defineCall` each, exported by name; loaders and
 * actions make them with `callApi(request, getThing, { params: { id } })`. The specification
 * names none yet, so there are none: see "Adding a call" in docs/calls.md.
 */
export {};
