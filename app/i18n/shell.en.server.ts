import type { Messages } from "./translate";

// Every word the shell shows, in English: the catalogue other locales translate, key for key.
// A key's first part says which routes' loaders hand it to the page (docs/languages.md).
const en = {
  "app.description": "A web application whose pages are being specified.",
  "meta.title": "{page} · {app}",
  "layout.skipLink": "Skip to main content",
  "layout.version": "Version {version}",
  "layout.loading": "Loading",
  "layout.signIn": "Sign in",
  "layout.signOut": "Sign out",
  "layout.apiMock": "The API is a mock answering from its contract.",
  "layout.apiMockLink": "Pick its answers",
  "theme.legend": "Theme",
  "theme.system": "System",
  "theme.light": "Light",
  "theme.dark": "Dark",
  "theme.invalid": "Choose System, Light or Dark.",
  "theme.saved": "Theme set to {theme}.",
  "language.legend": "Language",
  "language.invalid": "Choose one of the languages offered.",
  "language.saved": "The site is now in {language}.",
  "forms.invalid": "This value is not valid.",
  "errors.status": "Error {status}",
  "errors.home": "Go to the home page",
  "errors.BAD_REQUEST.title": "Bad request",
  "errors.BAD_REQUEST.message":
    "The request could not be understood. Check the address and try again.",
  "errors.VALIDATION_FAILED.title": "Check your answers",
  "errors.VALIDATION_FAILED.message":
    "Some of the information you sent is not valid. Correct it and send it again.",
  "errors.CROSS_SITE_REQUEST.title": "Request refused",
  "errors.CROSS_SITE_REQUEST.message":
    "This request did not come from this site, so it was refused.",
  "errors.NOT_FOUND.title": "Page not found",
  "errors.NOT_FOUND.message":
    "There is nothing at this address. It may have moved, or the link may be wrong.",
  "errors.METHOD_NOT_ALLOWED.title": "Not allowed here",
  "errors.METHOD_NOT_ALLOWED.message": "This address does not accept that kind of request.",
  "errors.REQUEST_TIMEOUT.title": "Request timed out",
  "errors.REQUEST_TIMEOUT.message": "Your request took too long to arrive. Try again.",
  "errors.PRECONDITION_FAILED.title": "Version changed",
  "errors.PRECONDITION_FAILED.message":
    "The file no longer matches the version your request asked for. Load it again.",
  "errors.PAYLOAD_TOO_LARGE.title": "Too much data",
  "errors.PAYLOAD_TOO_LARGE.message": "What you sent is larger than this site accepts.",
  "errors.URI_TOO_LONG.title": "Address too long",
  "errors.URI_TOO_LONG.message":
    "The address you asked for is longer than this site accepts. Check it and try again.",
  "errors.UNSUPPORTED_MEDIA_TYPE.title": "Unsupported format",
  "errors.UNSUPPORTED_MEDIA_TYPE.message":
    "What you sent is in a format this address does not accept.",
  "errors.RANGE_NOT_SATISFIABLE.title": "Range not available",
  "errors.RANGE_NOT_SATISFIABLE.message":
    "The part of the file your request asked for does not exist.",
  "errors.EXPECTATION_FAILED.title": "Expectation not supported",
  "errors.EXPECTATION_FAILED.message": "Your request asked for handling this site does not offer.",
  "errors.HEADERS_TOO_LARGE.title": "Request headers too large",
  "errors.HEADERS_TOO_LARGE.message":
    "Your request carried more header data than this site accepts. Clearing this site's cookies may help.",
  "errors.RATE_LIMITED.title": "Too many requests",
  "errors.RATE_LIMITED.message":
    "You have sent too many requests in a short time. Wait a minute and try again.",
  "errors.INTERNAL.title": "Something went wrong",
  "errors.INTERNAL.message": "An unexpected error occurred on our side. Try again in a moment.",
  "errors.UPSTREAM_BAD_RESPONSE.title": "Service error",
  "errors.UPSTREAM_BAD_RESPONSE.message":
    "A service this page depends on sent an answer we could not use. Try again later.",
  "errors.UPSTREAM_UNAVAILABLE.title": "Service unavailable",
  "errors.UPSTREAM_UNAVAILABLE.message":
    "A service this page depends on is not available right now. Try again later.",
  "errors.UPSTREAM_TIMEOUT.title": "Service timed out",
  "errors.UPSTREAM_TIMEOUT.message":
    "A service this page depends on took too long to answer. Try again later.",
  "errors.SIGN_IN_REQUIRED.title": "Sign in to continue",
  "errors.SIGN_IN_REQUIRED.message": "This needs you to be signed in. Sign in, then try again.",
  "errors.FORBIDDEN.title": "Not allowed",
  "errors.FORBIDDEN.message": "Your account does not have permission to do this.",
  "errors.SIGN_IN_DENIED.title": "Sign-in not completed",
  "errors.SIGN_IN_DENIED.message": "The sign-in service did not sign you in. You can try again.",
  "errors.SIGN_IN_EXPIRED.title": "Sign-in expired",
  "errors.SIGN_IN_EXPIRED.message":
    "This sign-in was not started here or took too long. Sign in again.",
  "errors.SIGN_IN_FAILED.title": "Sign-in failed",
  "errors.SIGN_IN_FAILED.message":
    "The sign-in service sent an answer we could not trust. Try again later.",
  "errors.SIGN_IN_UNAVAILABLE.title": "Sign-in unavailable",
  "errors.SIGN_IN_UNAVAILABLE.message":
    "Signing in is not possible right now. Try again in a moment.",
  "errors.NOT_CHANGED.title": "Nothing was changed",
  "errors.NOT_CHANGED.message":
    "It changed before your request arrived, so nothing was done. The page shows it as it is now.",
  "home.intro":
    "This application is being built; its pages will appear here as they are specified.",
  "themePage.title": "Theme",
  "themePage.label": "Colour theme",
  "themePage.hint": "System follows your device's setting.",
  "themePage.save": "Save theme",
  "themePage.saving": "Saving…",
  "languagePage.title": "Language",
  "languagePage.save": "Save language",
  "languagePage.saving": "Saving…",
} satisfies Messages;

export default en;

declare module "./translate" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- adds these keys to t's
  interface MessageKeys extends Record<keyof typeof en, true> {}
}
