/** What `callApi` throws for an API answer its call shows on forms (`formErrors` in docs/calls.md). */
export function refusal(
  status: number,
  errors: { formErrors: string[]; fieldErrors: Record<string, string[]> },
) {
  return Object.assign(new Error(`the API answered ${status}`), { status, errors });
}
