import type { ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";

/** One hostile request and the exact answer it must get. */
export type HostileCase = {
  name: string;
  request: (host: string) => string;
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

/** A form post whose 1 MB body comes in 1-byte chunks: 6 MB on the wire, a million pieces. */
export const oneByteChunks = http(
  "POST /preferences/theme HTTP/1.1",
  [`Content-Type: ${FORM}`, "Transfer-Encoding: chunked"],
  "1\r\na\r\n".repeat(1_000_000) + "0\r\n\r\n",
);

export const hostileCases: HostileCase[] = [
  // Host
  {
    name: "Host with a space",
    request: bare("GET / HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "no Host on HTTP/1.1",
    request: bare("GET / HTTP/1.1\r\nConnection: close\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "no Host on HTTP/1.0",
    request: bare("GET / HTTP/1.0\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "empty Host",
    request: bare("GET / HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "Host with a path",
    request: bare("GET / HTTP/1.1\r\nHost: evil.example/x\r\nConnection: close\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "Host with credentials",
    request: bare("GET / HTTP/1.1\r\nHost: user@evil.example\r\nConnection: close\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Host headers",
    request: http("GET / HTTP/1.1", ["Host: evil.example"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  // Methods
  {
    name: "TRACE",
    request: http("TRACE / HTTP/1.1"),
    status: 405,
    page: "METHOD_NOT_ALLOWED",
    allow: ALL_METHODS,
  },
  {
    name: "OPTIONS /",
    request: http("OPTIONS / HTTP/1.1"),
    status: 405,
    page: "METHOD_NOT_ALLOWED",
    allow: ALL_METHODS,
  },
  {
    name: "OPTIONS *",
    request: http("OPTIONS * HTTP/1.1"),
    status: 405,
    page: "METHOD_NOT_ALLOWED",
    allow: ALL_METHODS,
  },
  {
    name: "CONNECT",
    request: bare("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n"),
    status: 405,
    page: "METHOD_NOT_ALLOWED",
    allow: ALL_METHODS,
  },
  {
    name: "PROPFIND",
    request: http("PROPFIND / HTTP/1.1"),
    status: 405,
    page: "METHOD_NOT_ALLOWED",
    allow: ALL_METHODS,
  },
  {
    name: "a method Node does not know",
    request: http("BREW / HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "a lower-case method",
    request: http("get / HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "PUT where no action exists (Remix's 405)",
    request: post([`Content-Type: ${FORM}`], "a=1", "PUT / HTTP/1.1"),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "DELETE where no action exists (Remix's 405)",
    request: http("DELETE / HTTP/1.1"),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "POST to a resource route without an action",
    request: form([], "POST /healthz HTTP/1.1"),
    status: 405,
    allow: REMIX_405,
  },
  // Request targets
  {
    name: "absolute-form target",
    request: http("GET http://evil.example/ HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "truncated percent-encoding in the path",
    request: http("GET /%E0%A4%A HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "invalid percent-encoding in the path",
    request: http("GET /%ZZ HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "truncated percent-encoding under /build",
    request: http("GET /build/%E0%A4%A HTTP/1.1"),
    status: 404,
  },
  {
    name: "truncated percent-encoding in the query",
    request: http("GET /?q=%E0%A4%A HTTP/1.1"),
    status: 200,
  },
  {
    name: "a raw non-ASCII byte in the path",
    request: http("GET /\u00e9 HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "a path of 33 segments",
    request: http(`GET /${"a/".repeat(33)} HTTP/1.1`),
    status: 414,
    page: "URI_TOO_LONG",
  },
  {
    name: "a path of 32 segments (a 404 page)",
    request: http(`GET /${"a/".repeat(32)} HTTP/1.1`),
    status: 404,
  },
  { name: "path traversal", request: http("GET /../../etc/passwd HTTP/1.1"), status: 404 },
  {
    name: "encoded path traversal under /build",
    request: http("GET /build/..%2f..%2fpackage.json HTTP/1.1"),
    status: 404,
  },
  { name: "a protocol-relative path", request: http("GET //evil.example/ HTTP/1.1"), status: 404 },
  { name: "a backslash path", request: http("GET /\\evil.example/ HTTP/1.1"), status: 404 },
  { name: "an encoded NUL in the path", request: http("GET /%00 HTTP/1.1"), status: 404 },
  {
    name: "legacy ?_data= GET",
    request: http("GET /?_data=root HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "legacy ?_data= after a second ?",
    request: http("GET /?a=?&_data=root HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "legacy ?_data= POST",
    request: form([], "POST /?_data=routes%2F_site HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "cross-site ?_data= POST",
    request: form(["Origin: https://evil.example"], "POST /?_data=root HTTP/1.1"),
    status: 400,
    page: "BAD_REQUEST",
  },
  // Cross-site writes
  {
    name: "POST from another site",
    request: form(["Origin: https://evil.example"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  ...["PUT", "PATCH", "DELETE"].map((method) => ({
    name: `${method} from another site (GHSA-84g9-w2xq-vcv6)`,
    request: form(["Origin: https://evil.example"], `${method} /preferences/theme HTTP/1.1`),
    status: 403,
    page: "CROSS_SITE_REQUEST" as const,
  })),
  {
    name: "POST from another port",
    request: (host) => form([`Origin: http://${host.replace(/:\d+$/, ":1")}`])(host),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "POST from another scheme",
    request: (host) => form([`Origin: https://${host}`])(host),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "POST with Origin: null",
    request: form(["Origin: null"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "POST with an Origin that is not a URL",
    request: form(["Origin: not a url"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "POST with Sec-Fetch-Site: cross-site",
    request: form(["Sec-Fetch-Site: cross-site"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "POST with Sec-Fetch-Site: same-site",
    request: form(["Sec-Fetch-Site: same-site"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "PUT from another site",
    request: form(["Origin: https://evil.example"], "PUT / HTTP/1.1"),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "PATCH from another site",
    request: form(["Origin: https://evil.example"], "PATCH / HTTP/1.1"),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "DELETE from another site",
    request: http("DELETE / HTTP/1.1", ["Origin: https://evil.example"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "POST from another site with a forged X-Forwarded-Host to match",
    request: form(["Origin: http://evil.example", "X-Forwarded-Host: evil.example"]),
    status: 403,
    page: "CROSS_SITE_REQUEST",
  },
  {
    name: "same-origin POST with X-Forwarded-Host: evil.example",
    request: (host) => form([`Origin: http://${host}`, "X-Forwarded-Host: evil.example"])(host),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "same-origin POST with an upper-case Host",
    request: (host) =>
      form([`Origin: http://${host.replace("127.0.0.1", "localhost")}`])(
        host.replace("127.0.0.1", "LOCALHOST"),
      ),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "same-origin POST with the default port in Host",
    request: () => form(["Origin: http://app.example"])("app.example:80"),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "same-origin POST (reaches Remix)",
    request: (host) => form([`Origin: http://${host}`, "Sec-Fetch-Site: same-origin"])(host),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "POST without Origin or Sec-Fetch-Site (reaches Remix)",
    request: form([]),
    status: 405,
    allow: REMIX_405,
  },
  // Bodies
  {
    name: "JSON body to an action",
    request: post(["Content-Type: application/json"], '{"a":1}'),
    status: 415,
    page: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "multipart body to an action",
    request: post(
      ["Content-Type: multipart/form-data; boundary=x"],
      "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n",
    ),
    status: 415,
    page: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "text/plain body to an action",
    request: post(["Content-Type: text/plain"], "a=1"),
    status: 415,
    page: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "body without Content-Type",
    request: post([], "a=1"),
    status: 415,
    page: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "malformed URL-encoded body",
    request: post([`Content-Type: ${FORM}`], "a=%ZZ&&=&b"),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "declared Content-Length over the limit",
    request: http("POST / HTTP/1.1", [`Content-Type: ${FORM}`, "Content-Length: 5000000"]),
    status: 413,
    page: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "non-numeric Content-Length",
    request: http("POST / HTTP/1.1", [`Content-Type: ${FORM}`, "Content-Length: abc"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "Content-Length and Transfer-Encoding together",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Content-Length: 3", "Transfer-Encoding: chunked"],
      "0\r\n\r\n",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  // Single-value headers sent twice: Node keeps one, a proxy may have acted on the other
  {
    name: "two Content-Types (URL-encoded, then multipart)",
    request: post(
      [`Content-Type: ${FORM}`, "Content-Type: multipart/form-data; boundary=x"],
      "--x\r\nContent-Disposition: form-data; name=theme\r\n\r\ndark\r\n--x--\r\n",
      "POST /preferences/theme HTTP/1.1",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Content-Types (multipart, then URL-encoded)",
    request: post(
      ["Content-Type: multipart/form-data; boundary=x", `Content-Type: ${FORM}`],
      "theme=dark",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Origins",
    request: (host) => form([`Origin: http://${host}`, `Origin: http://${host}`])(host),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Content-Lengths that agree",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Content-Length: 3", "Content-Length: 3"],
      "a=1",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Authorization headers",
    request: http("GET / HTTP/1.1", ["Authorization: Basic YTpi", "Authorization: Basic Yzpk"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Sec-Fetch-Site headers",
    request: form(["Sec-Fetch-Site: same-origin", "Sec-Fetch-Site: cross-site"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Range headers",
    request: http("GET /favicon.svg HTTP/1.1", ["Range: bytes=0-1", "Range: bytes=2-3"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Expect headers",
    request: http("GET / HTTP/1.1", ["Expect: 100-continue", "Expect: 100-continue"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Cookie headers (allowed)",
    request: http("GET / HTTP/1.1", ["Cookie: a=1", "Cookie: b=2"]),
    status: 200,
  },
  {
    name: "two Accept headers (a list, allowed)",
    request: http("GET / HTTP/1.1", ["Accept: text/html", "Accept: */*"]),
    status: 200,
  },
  // Body framing: a plain length, or chunked alone
  {
    name: "Transfer-Encoding: gzip, chunked",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Transfer-Encoding: gzip, chunked"],
      "0\r\n\r\n",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "Transfer-Encoding: identity",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Transfer-Encoding: identity"],
      "a=1",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "Transfer-Encoding: chunked, identity",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Transfer-Encoding: chunked, identity"],
      "0\r\n\r\n",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "two Transfer-Encoding: chunked",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
      "0\r\n\r\n",
    ),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "Transfer-Encoding: CHUNKED (reaches Remix)",
    request: http(
      "POST / HTTP/1.1",
      [`Content-Type: ${FORM}`, "Transfer-Encoding: CHUNKED"],
      "3\r\na=1\r\n0\r\n\r\n",
    ),
    status: 405,
    allow: REMIX_405,
  },
  {
    name: "a gzip-encoded form body",
    request: post([`Content-Type: ${FORM}`, "Content-Encoding: gzip"], "\u001f\u008b\u0008\u0000"),
    status: 415,
    page: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "Content-Encoding: identity (reaches Remix)",
    request: post([`Content-Type: ${FORM}`, "Content-Encoding: identity"]),
    status: 405,
    allow: REMIX_405,
  },
  // Expectations
  {
    name: "Expect: something else",
    request: http("GET / HTTP/1.1", ["Expect: something-else"]),
    status: 417,
    page: "EXPECTATION_FAILED",
  },
  {
    name: "Expect: 100-continue, and more",
    request: form(["Expect: 100-continue, something-else"]),
    status: 417,
    page: "EXPECTATION_FAILED",
  },
  {
    name: "Expect on HTTP/1.0",
    request: http("GET / HTTP/1.0", ["Expect: something-else"]),
    status: 417,
    page: "EXPECTATION_FAILED",
  },
  // Static files
  {
    name: "a Range past the end of a file",
    request: http("GET /favicon.svg HTTP/1.1", ["Range: bytes=99999-"]),
    status: 416,
    page: "RANGE_NOT_SATISFIABLE",
  },
  {
    name: "an If-Match no version matches",
    request: http("GET /favicon.svg HTTP/1.1", ['If-Match: "nope"']),
    status: 412,
    page: "PRECONDITION_FAILED",
  },
  {
    name: "an If-Unmodified-Since long past",
    request: http("GET /favicon.svg HTTP/1.1", [
      "If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT",
    ]),
    status: 412,
    page: "PRECONDITION_FAILED",
  },
  {
    name: "a satisfiable Range",
    request: http("GET /favicon.svg HTTP/1.1", ["Range: bytes=0-9"]),
    status: 206,
  },
  // Malformed messages and headers
  {
    name: "oversized headers",
    request: http("GET / HTTP/1.1", [`X-Padding: ${"a".repeat(20_000)}`]),
    status: 431,
    page: "HEADERS_TOO_LARGE",
  },
  {
    name: "oversized URL",
    request: http(`GET /${"a".repeat(20_000)} HTTP/1.1`),
    status: 431,
    page: "HEADERS_TOO_LARGE",
  },
  {
    name: "oversized cookie",
    request: http("GET / HTTP/1.1", [`Cookie: a=${"b".repeat(20_000)}`]),
    status: 431,
    page: "HEADERS_TOO_LARGE",
  },
  {
    name: "2,001 headers, a text/plain Content-Type 2,001st (Node would drop it)",
    request: http(
      "POST / HTTP/1.1",
      [...Array(1_997).fill("x: y"), "Content-Length: 3", "Content-Type: text/plain"],
      "a=1",
    ),
    status: 431,
    page: "HEADERS_TOO_LARGE",
  },
  {
    name: "2,000 headers (Node's count, allowed)",
    request: http("GET / HTTP/1.1", Array(1_998).fill("x: y")),
    status: 200,
  },
  {
    name: "tampered cookies (ignored)",
    request: http("GET / HTTP/1.1", [
      "Cookie: __session=tampered.c2lnbmF0dXJl%%; theme=<script>; ==;",
    ]),
    status: 200,
  },
  {
    name: "a control character in a header value",
    request: http("GET / HTTP/1.1", ["X-Test: a\u0001b"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "a header line without a colon",
    request: http("GET / HTTP/1.1", ["NoColonHere"]),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "bare LF line endings",
    request: bare("GET / HTTP/1.1\nHost: localhost\n\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "an unknown HTTP version",
    request: http("GET / HTTP/3.0"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "an HTTP/2 preface",
    request: bare("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "a TLS handshake on the plain port",
    request: bare("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003"),
    status: 400,
    page: "BAD_REQUEST",
  },
  {
    name: "forged X-Forwarded-Proto",
    request: http("GET / HTTP/1.1", ["X-Forwarded-Proto: javascript"]),
    status: 200,
  },
];

/** The catalogue title a refusal's page must show. */
export function titleOf(code: ErrorCode) {
  return getEnglishError(code).title;
}
