import type { ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";

type RawRequest = (host: string) => string;

/** One hostile request and the exact answer it must get. */
export type HostileCase = {
  name: string;
  request: RawRequest;
  status: number;
  /** The catalogue entry whose page the answer must be. */
  page?: ErrorCode;
  allow?: string;
};

const ALL_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";
const REMIX_405 = "GET, HEAD";
const FORM = "application/x-www-form-urlencoded";

/** A request line, the given headers plus Host and Connection: close, and an optional body. */
export function http(requestLine: string, headers: string[] = [], body = "") {
  return (host: string) =>
    [requestLine, `Host: ${host}`, "Connection: close", ...headers, "", body].join("\r\n");
}

function post(headers: string[], body = "a=1", requestLine = "POST / HTTP/1.1") {
  return http(requestLine, [...headers, `Content-Length: ${Buffer.byteLength(body)}`], body);
}

function form(headers: string[], requestLine?: string) {
  return post([`Content-Type: ${FORM}`, ...headers], "a=1", requestLine);
}

const bare = (raw: string) => () => raw;

const formPost = (headers: string[], body: string) =>
  http("POST / HTTP/1.1", [`Content-Type: ${FORM}`, ...headers], body);

/** A case maker for one expected answer. */
const answer =
  (status: number, page?: ErrorCode, allow?: string) =>
  (name: string, request: RawRequest): HostileCase => ({ name, request, status, page, allow });

const badRequest = answer(400, "BAD_REQUEST");
const crossSite = answer(403, "CROSS_SITE_REQUEST");
const notAllowed = answer(405, "METHOD_NOT_ALLOWED", ALL_METHODS);
const reachesRemix = answer(405, undefined, REMIX_405);
const unsupported = answer(415, "UNSUPPORTED_MEDIA_TYPE");
const expectationFailed = answer(417, "EXPECTATION_FAILED");
const headersTooLarge = answer(431, "HEADERS_TOO_LARGE");
const ok = answer(200);
const notFound = answer(404);

/** A form post whose 1 MB body comes in 1-byte chunks: 6 MB on the wire, a million pieces. */
export const oneByteChunks = http(
  "POST /preferences/theme HTTP/1.1",
  [`Content-Type: ${FORM}`, "Transfer-Encoding: chunked"],
  "1\r\na\r\n".repeat(1_000_000) + "0\r\n\r\n",
);

export const hostileCases: HostileCase[] = [
  // Host
  badRequest("Host with a space", bare("GET / HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n")),
  badRequest("no Host on HTTP/1.1", bare("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")),
  badRequest("no Host on HTTP/1.0", bare("GET / HTTP/1.0\r\n\r\n")),
  badRequest("empty Host", bare("GET / HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n")),
  badRequest(
    "Host with a path",
    bare("GET / HTTP/1.1\r\nHost: evil.example/x\r\nConnection: close\r\n\r\n"),
  ),
  badRequest(
    "Host with credentials",
    bare("GET / HTTP/1.1\r\nHost: user@evil.example\r\nConnection: close\r\n\r\n"),
  ),
  badRequest("two Host headers", http("GET / HTTP/1.1", ["Host: evil.example"])),
  // Methods
  notAllowed("TRACE", http("TRACE / HTTP/1.1")),
  notAllowed("OPTIONS /", http("OPTIONS / HTTP/1.1")),
  notAllowed("OPTIONS *", http("OPTIONS * HTTP/1.1")),
  notAllowed(
    "CONNECT",
    bare("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n"),
  ),
  notAllowed("PROPFIND", http("PROPFIND / HTTP/1.1")),
  badRequest("a method Node does not know", http("BREW / HTTP/1.1")),
  badRequest("a lower-case method", http("get / HTTP/1.1")),
  reachesRemix(
    "PUT where no action exists (Remix's 405)",
    post([`Content-Type: ${FORM}`], "a=1", "PUT / HTTP/1.1"),
  ),
  reachesRemix("DELETE where no action exists (Remix's 405)", http("DELETE / HTTP/1.1")),
  reachesRemix("POST to a resource route without an action", form([], "POST /healthz HTTP/1.1")),
  // Request targets
  badRequest("absolute-form target", http("GET http://evil.example/ HTTP/1.1")),
  badRequest("truncated percent-encoding in the path", http("GET /%E0%A4%A HTTP/1.1")),
  badRequest("invalid percent-encoding in the path", http("GET /%ZZ HTTP/1.1")),
  notFound("truncated percent-encoding under /build", http("GET /build/%E0%A4%A HTTP/1.1")),
  ok("truncated percent-encoding in the query", http("GET /?q=%E0%A4%A HTTP/1.1")),
  badRequest("a raw non-ASCII byte in the path", http("GET /\u00e9 HTTP/1.1")),
  answer(414, "URI_TOO_LONG")("a path of 33 segments", http(`GET /${"a/".repeat(33)} HTTP/1.1`)),
  notFound("a path of 32 segments (a 404 page)", http(`GET /${"a/".repeat(32)} HTTP/1.1`)),
  notFound("path traversal", http("GET /../../etc/passwd HTTP/1.1")),
  notFound(
    "encoded path traversal under /build",
    http("GET /build/..%2f..%2fpackage.json HTTP/1.1"),
  ),
  notFound("a protocol-relative path", http("GET //evil.example/ HTTP/1.1")),
  notFound("a backslash path", http("GET /\\evil.example/ HTTP/1.1")),
  notFound("an encoded NUL in the path", http("GET /%00 HTTP/1.1")),
  badRequest("legacy ?_data= GET", http("GET /?_data=root HTTP/1.1")),
  badRequest("legacy ?_data= after a second ?", http("GET /?a=?&_data=root HTTP/1.1")),
  badRequest("legacy ?_data= POST", form([], "POST /?_data=routes%2F_site HTTP/1.1")),
  badRequest(
    "cross-site ?_data= POST",
    form(["Origin: https://evil.example"], "POST /?_data=root HTTP/1.1"),
  ),
  // Cross-site writes
  crossSite("POST from another site", form(["Origin: https://evil.example"])),
  ...["PUT", "PATCH", "DELETE"].map((method) =>
    crossSite(
      `${method} from another site (GHSA-84g9-w2xq-vcv6)`,
      form(["Origin: https://evil.example"], `${method} /preferences/theme HTTP/1.1`),
    ),
  ),
  crossSite("POST from another port", (host) =>
    form([`Origin: http://${host.replace(/:\d+$/, ":1")}`])(host),
  ),
  crossSite("POST from another scheme", (host) => form([`Origin: https://${host}`])(host)),
  crossSite("POST with Origin: null", form(["Origin: null"])),
  crossSite("POST with an Origin that is not a URL", form(["Origin: not a url"])),
  crossSite("POST with Sec-Fetch-Site: cross-site", form(["Sec-Fetch-Site: cross-site"])),
  crossSite("POST with Sec-Fetch-Site: same-site", form(["Sec-Fetch-Site: same-site"])),
  crossSite("PUT from another site", form(["Origin: https://evil.example"], "PUT / HTTP/1.1")),
  crossSite("PATCH from another site", form(["Origin: https://evil.example"], "PATCH / HTTP/1.1")),
  crossSite(
    "DELETE from another site",
    http("DELETE / HTTP/1.1", ["Origin: https://evil.example"]),
  ),
  crossSite(
    "POST from another site with a forged X-Forwarded-Host to match",
    form(["Origin: http://evil.example", "X-Forwarded-Host: evil.example"]),
  ),
  reachesRemix("same-origin POST with X-Forwarded-Host: evil.example", (host) =>
    form([`Origin: http://${host}`, "X-Forwarded-Host: evil.example"])(host),
  ),
  reachesRemix("same-origin POST with an upper-case Host", (host) =>
    form([`Origin: http://${host.replace("127.0.0.1", "localhost")}`])(
      host.replace("127.0.0.1", "LOCALHOST"),
    ),
  ),
  reachesRemix("same-origin POST with the default port in Host", () =>
    form(["Origin: http://app.example"])("app.example:80"),
  ),
  reachesRemix("same-origin POST (reaches Remix)", (host) =>
    form([`Origin: http://${host}`, "Sec-Fetch-Site: same-origin"])(host),
  ),
  reachesRemix("POST without Origin or Sec-Fetch-Site (reaches Remix)", form([])),
  // Bodies
  unsupported("JSON body to an action", post(["Content-Type: application/json"], '{"a":1}')),
  unsupported(
    "multipart body to an action",
    post(
      ["Content-Type: multipart/form-data; boundary=x"],
      "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n",
    ),
  ),
  unsupported("text/plain body to an action", post(["Content-Type: text/plain"], "a=1")),
  unsupported("body without Content-Type", post([], "a=1")),
  reachesRemix("malformed URL-encoded body", post([`Content-Type: ${FORM}`], "a=%ZZ&&=&b")),
  answer(413, "PAYLOAD_TOO_LARGE")(
    "declared Content-Length over the limit",
    formPost(["Content-Length: 5000000"], ""),
  ),
  badRequest("non-numeric Content-Length", formPost(["Content-Length: abc"], "")),
  badRequest(
    "Content-Length and Transfer-Encoding together",
    formPost(["Content-Length: 3", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
  ),
  // Single-value headers sent twice: Node keeps one, a proxy may have acted on the other
  badRequest(
    "two Content-Types (URL-encoded, then multipart)",
    post(
      [`Content-Type: ${FORM}`, "Content-Type: multipart/form-data; boundary=x"],
      "--x\r\nContent-Disposition: form-data; name=theme\r\n\r\ndark\r\n--x--\r\n",
      "POST /preferences/theme HTTP/1.1",
    ),
  ),
  badRequest(
    "two Content-Types (multipart, then URL-encoded)",
    post(["Content-Type: multipart/form-data; boundary=x", `Content-Type: ${FORM}`], "theme=dark"),
  ),
  badRequest("two Origins", (host) =>
    form([`Origin: http://${host}`, `Origin: http://${host}`])(host),
  ),
  badRequest(
    "two Content-Lengths that agree",
    formPost(["Content-Length: 3", "Content-Length: 3"], "a=1"),
  ),
  badRequest(
    "two Authorization headers",
    http("GET / HTTP/1.1", ["Authorization: Basic YTpi", "Authorization: Basic Yzpk"]),
  ),
  badRequest(
    "two Sec-Fetch-Site headers",
    form(["Sec-Fetch-Site: same-origin", "Sec-Fetch-Site: cross-site"]),
  ),
  badRequest(
    "two Range headers",
    http("GET /favicon.svg HTTP/1.1", ["Range: bytes=0-1", "Range: bytes=2-3"]),
  ),
  badRequest(
    "two Expect headers",
    http("GET / HTTP/1.1", ["Expect: 100-continue", "Expect: 100-continue"]),
  ),
  ok("two Cookie headers (allowed)", http("GET / HTTP/1.1", ["Cookie: a=1", "Cookie: b=2"])),
  ok(
    "two Accept headers (a list, allowed)",
    http("GET / HTTP/1.1", ["Accept: text/html", "Accept: */*"]),
  ),
  // Body framing: a plain length, or chunked alone
  badRequest(
    "Transfer-Encoding: gzip, chunked",
    formPost(["Transfer-Encoding: gzip, chunked"], "0\r\n\r\n"),
  ),
  badRequest("Transfer-Encoding: identity", formPost(["Transfer-Encoding: identity"], "a=1")),
  badRequest(
    "Transfer-Encoding: chunked, identity",
    formPost(["Transfer-Encoding: chunked, identity"], "0\r\n\r\n"),
  ),
  badRequest(
    "two Transfer-Encoding: chunked",
    formPost(["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
  ),
  reachesRemix(
    "Transfer-Encoding: CHUNKED (reaches Remix)",
    formPost(["Transfer-Encoding: CHUNKED"], "3\r\na=1\r\n0\r\n\r\n"),
  ),
  unsupported(
    "a gzip-encoded form body",
    post([`Content-Type: ${FORM}`, "Content-Encoding: gzip"], "\u001f\u008b\u0008\u0000"),
  ),
  reachesRemix(
    "Content-Encoding: identity (reaches Remix)",
    post([`Content-Type: ${FORM}`, "Content-Encoding: identity"]),
  ),
  // Expectations
  expectationFailed("Expect: something else", http("GET / HTTP/1.1", ["Expect: something-else"])),
  expectationFailed(
    "Expect: 100-continue, and more",
    form(["Expect: 100-continue, something-else"]),
  ),
  expectationFailed("Expect on HTTP/1.0", http("GET / HTTP/1.0", ["Expect: something-else"])),
  // Static files
  answer(416, "RANGE_NOT_SATISFIABLE")(
    "a Range past the end of a file",
    http("GET /favicon.svg HTTP/1.1", ["Range: bytes=99999-"]),
  ),
  answer(412, "PRECONDITION_FAILED")(
    "an If-Match no version matches",
    http("GET /favicon.svg HTTP/1.1", ['If-Match: "nope"']),
  ),
  answer(412, "PRECONDITION_FAILED")(
    "an If-Unmodified-Since long past",
    http("GET /favicon.svg HTTP/1.1", ["If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT"]),
  ),
  answer(206)("a satisfiable Range", http("GET /favicon.svg HTTP/1.1", ["Range: bytes=0-9"])),
  // Malformed messages and headers
  headersTooLarge(
    "oversized headers",
    http("GET / HTTP/1.1", [`X-Padding: ${"a".repeat(20_000)}`]),
  ),
  headersTooLarge("oversized URL", http(`GET /${"a".repeat(20_000)} HTTP/1.1`)),
  headersTooLarge("oversized cookie", http("GET / HTTP/1.1", [`Cookie: a=${"b".repeat(20_000)}`])),
  headersTooLarge(
    "2,001 headers, a text/plain Content-Type 2,001st (Node would drop it)",
    http(
      "POST / HTTP/1.1",
      [...Array(1_997).fill("x: y"), "Content-Length: 3", "Content-Type: text/plain"],
      "a=1",
    ),
  ),
  ok("2,000 headers (Node's count, allowed)", http("GET / HTTP/1.1", Array(1_998).fill("x: y"))),
  ok(
    "tampered cookies (ignored)",
    http("GET / HTTP/1.1", ["Cookie: __session=tampered.c2lnbmF0dXJl%%; theme=<script>; ==;"]),
  ),
  badRequest("a control character in a header value", http("GET / HTTP/1.1", ["X-Test: a\u0001b"])),
  badRequest("a header line without a colon", http("GET / HTTP/1.1", ["NoColonHere"])),
  badRequest("bare LF line endings", bare("GET / HTTP/1.1\nHost: localhost\n\n")),
  badRequest("an unknown HTTP version", http("GET / HTTP/3.0")),
  badRequest("an HTTP/2 preface", bare("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")),
  badRequest(
    "a TLS handshake on the plain port",
    bare("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003"),
  ),
  ok("forged X-Forwarded-Proto", http("GET / HTTP/1.1", ["X-Forwarded-Proto: javascript"])),
];

/** The catalogue title a refusal's page must show. */
export function titleOf(code: ErrorCode) {
  return getEnglishError(code).title;
}
