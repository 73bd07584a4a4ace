// What loaders and actions need from the form toolkit, in one import.
export { parseSearchParams } from "./parse-search-params";
export { parseSubmission } from "./parse-submission.server";
export { replyWithApiErrors } from "./reply-with-api-errors.server";
export { submitForm, submitIntent, type SubmitOutcome } from "./submit-form.server";
