import dgram from "node:dgram";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { once } from "node:events";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { patches } from "../../patches/apply-patches.js";
import {
  projectRoot,
  reservePort,
  runServerUntilExit,
  spawnServer,
  startServer,
  startSuiteServer,
} from "../support/server";
import { parseHtml } from "../support/html";
import { sendRaw } from "../support/raw-http";

const server = startSuiteServer();

const request = (method: string) =>
  sendRaw(
    server.port,
    `${method} / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`,
  );

describe("pages", () => {
  it("serves the home page inside the site layout", async () => {
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toMatch(/^<!DOCTYPE html>/);
    const page = parseHtml(html);
    expect(page.documentElement.lang).toBe("en");
    expect(page.querySelector("a.skip-link")?.getAttribute("href")).toBe("#main");
    expect(page.querySelector("header.site-header")).not.toBeNull();
    const main = page.querySelector("main#main");
    expect(main?.getAttribute("tabindex")).toBe("-1");
    expect(main?.querySelector(".flash[role=status]")?.textContent).toBe("");
    expect(main?.querySelector("h1")).not.toBeNull();
    expect(page.querySelector("footer.site-footer")?.textContent).toMatch(/^Version \d+\.\d+\.\d+/);
    expect(page.querySelector('meta[name="description"]')?.getAttribute("content")).toBeTruthy();
    expect(response.headers.get("x-powered-by")).toBeNull();
  });

  it("sends a page without deferred data whole, with its length, in one write", async () => {
    const { headers, body } = await request("GET");
    expect(headers["content-length"]).toBe(String(Buffer.byteLength(body, "latin1")));
    expect(headers["transfer-encoding"]).toBeUndefined();
    expect(body).toContain("</html>");
    expect(body).toMatch(/streamController\.close\(\);<\/script>(<!--\/\$-->)+$/);
  });

  it("answers 404 for unknown paths, inside the layout, with a link home", async () => {
    const response = await fetch(`${server.url}/no/such/page`);
    expect(response.status).toBe(404);
    const page = parseHtml(await response.text());
    expect(page.querySelector("header.site-header")).not.toBeNull();
    expect(page.title).toMatch(/^Page not found · /);
    expect(page.querySelector("main h1")?.textContent).toBe("Page not found");
    expect(page.querySelector("main .error a")?.getAttribute("href")).toBe("/");
  });

  // Without `?index` a post to / is the root's, which the server refuses before Remix.
  it.each(["/", "/?index"])("answers 405 to a POST to %s, where no action exists", async (path) => {
    const response = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "accept-language": "ar" },
      body: "a=1",
    });
    expect(response.status).toBe(405);
    expect(await response.text()).toContain("غير مسموح هنا");
  });

  it("answers HEAD / with headers and no body", async () => {
    const { status, headers, body } = await request("HEAD");
    expect(status).toBe(200);
    expect(headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(body).toBe("");
  });
});

describe("/healthz", () => {
  it("reports liveness as uncacheable JSON", async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toEqual({
      status: "ok",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      uptime: expect.any(Number),
    });
  });

  it("supports HEAD", async () => {
    const response = await fetch(`${server.url}/healthz`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });
});

describe("request ids", () => {
  it("keeps a well-formed incoming X-Request-Id and logs it", async () => {
    const response = await fetch(server.url, { headers: { "x-request-id": "abc.DEF_123-xyz" } });
    expect(response.headers.get("x-request-id")).toBe("abc.DEF_123-xyz");
    await expect.poll(() => server.output()).toContain('"requestId":"abc.DEF_123-xyz"');
  });

  it.each([["has spaces"], ["a".repeat(129)], ["<script>"], ["semi;colon"]])(
    "replaces an unsafe incoming id (%s) with a generated one",
    async (incoming) => {
      const response = await fetch(server.url, { headers: { "x-request-id": incoming } });
      const id = response.headers.get("x-request-id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it("generates an id when none is sent", async () => {
    const first = (await fetch(server.url)).headers.get("x-request-id");
    const second = (await fetch(server.url)).headers.get("x-request-id");
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).not.toBe(first);
  });
});

describe("logs", () => {
  it("record method, path, status and duration but never cookies, credentials or query strings", async () => {
    await fetch(`${server.url}/log-check?token=query-secret`, {
      headers: { cookie: "session=cookie-secret", authorization: "Bearer auth-secret" },
    });
    await expect.poll(() => server.output()).toContain('"path":"/log-check"');
    const line = server
      .output()
      .split("\n")
      .find((l) => l.includes('"path":"/log-check"'))!;
    expect(JSON.parse(line)).toMatchObject({
      method: "GET",
      status: 404,
      durationMs: expect.any(Number),
    });
    expect(server.output()).not.toMatch(/cookie-secret|auth-secret|query-secret/);
  });
});

describe("static files", () => {
  it("serves fingerprinted build assets as immutable for a year", async () => {
    const html = await (await fetch(server.url)).text();
    const asset = /href="(\/build\/[^"]+\.css)"/.exec(html)![1];
    const response = await fetch(`${server.url}${asset}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it("serves other public files with a short cache", async () => {
    const response = await fetch(`${server.url}/favicon.svg`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("answers a missing build asset with a plain 404", async () => {
    const response = await fetch(`${server.url}/build/missing-ABC123.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("start-up configuration", () => {
  it.each([
    ["PORT", "not-a-port"],
    ["SESSION_SECRET", "short"],
    ["ORIGIN", "example.com"],
    ["LOG_LEVEL", "chatty"],
    // The API mock is for `npm run dev`: a production server refuses to answer from it.
    ["API_MOCK", "true"],
    // RFC 9116 asks for less than a year ahead.
    ["SECURITY_TXT_EXPIRES", new Date(Date.now() + 400 * 86_400_000).toISOString()],
  ])("exits 1 with one line naming %s when it is invalid", async (name, value) => {
    const { code, stdout, stderr } = await runServerUntilExit({ [name]: value });
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^Invalid environment variable ${name}: `));
    expect(stdout).not.toContain("listening");
  });

  /**
   * Runs `run` in the build in a folder of its own, whose node_modules links to the project's
   * packages but holds a copy of `patch`'s package as an install without scripts leaves it: without
   * the fix.
   */
  async function inLayoutWithout(
    patch: (typeof patches)[number] | undefined,
    run: (dir: string) => Promise<void>,
  ) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "app-"));
    const modules = path.join(projectRoot, "node_modules");
    mkdirSync(path.join(dir, "build"));
    cpSync(path.join(projectRoot, "build/index.js"), path.join(dir, "build/index.js"));
    cpSync(path.join(projectRoot, "package.json"), path.join(dir, "package.json"));
    symlinkSync(path.join(projectRoot, "public"), path.join(dir, "public"));
    const names = readdirSync(modules).filter((name) => !name.startsWith("."));
    for (const name of names.flatMap((name) =>
      name.startsWith("@")
        ? readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`)
        : [name],
    )) {
      mkdirSync(path.dirname(path.join(dir, "node_modules", name)), { recursive: true });
      if (name === patch?.package)
        cpSync(path.join(modules, name), path.join(dir, "node_modules", name), { recursive: true });
      else symlinkSync(path.join(modules, name), path.join(dir, "node_modules", name));
    }
    for (const file of patch?.files ?? []) {
      const copy = path.join(dir, "node_modules", patch!.package, file);
      let text = readFileSync(copy, "utf8");
      for (const [from, to] of patch!.replacements as [string, string][])
        text = text.replace(to, () => from);
      writeFileSync(copy, text);
    }
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.each(patches.map((patch) => [patch.advisory, patch] as const))(
    "exits 1 with one line naming %s when the installed packages lack its fix",
    async (advisory, patch) => {
      await inLayoutWithout(patch, async (dir) => {
        const { code, stdout, stderr } = await runServerUntilExit({}, { cwd: dir });
        expect(code).toBe(1);
        expect(stderr.trim().split("\n")).toHaveLength(1);
        expect(stderr).toContain(advisory);
        expect(stdout).not.toContain("listening");
      });
    },
  );

  it("starts from the same layout when every fix is there", async () => {
    await inLayoutWithout(undefined, async (dir) => {
      const laidOut = await startServer({}, { cwd: dir });
      expect((await fetch(laidOut.url)).status).toBe(200);
      expect(await laidOut.stop()).toBe(0);
    });
  });

  it("warns when SESSION_SECRET is unset and still starts", async () => {
    const unconfigured = await startServer({ SESSION_SECRET: "" });
    try {
      expect(unconfigured.output()).toContain("SESSION_SECRET is not set");
      expect((await fetch(unconfigured.url)).status).toBe(200);
    } finally {
      await unconfigured.stop();
    }
  });
});

describe("a socket handed over (LISTEN_FDS, LISTEN_PID), read as sd_listen_fds(3) reads them", () => {
  it.each([
    ["without LISTEN_PID", undefined],
    ["with another process's LISTEN_PID", String(process.pid)],
  ])(
    "is not taken %s: the server listens on PORT and never accepts on fd 3",
    async (_case, LISTEN_PID) => {
      // The parent's own listening socket, which the server inherits as fd 3.
      const parent = await reservePort();
      const stray = await startServer({ LISTEN_FDS: "1", LISTEN_PID }, { fd3: parent.fd });
      try {
        const meantForParent = `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
        const answers = await Promise.all(
          Array.from({ length: 8 }, () => sendRaw(parent.port, meantForParent)),
        );
        expect(answers.map(({ status }) => status)).toEqual(Array(8).fill(0));
        expect(parent.accepted()).toBe(8);
        expect((await fetch(`${stray.url}/healthz`)).status).toBe(200);
      } finally {
        parent.close();
        await stray.stop();
      }
    },
  );

  it("starts whether or not the parent still holds the IPC channel it handed over", async () => {
    const listener = await reservePort();
    const orphan = spawnServer({}, { listener });
    orphan.child.disconnect();
    const exited = once(orphan.child, "exit");
    try {
      await expect.poll(() => orphan.stdout()).toContain('"msg":"listening');
      expect((await fetch(`${listener.url}/healthz`)).status).toBe(200);
    } finally {
      orphan.child.kill();
      expect(await exited).toEqual([0, null]);
    }
  });

  it("is not taken from a forked server's IPC channel at fd 3 without LISTEN_PID", async () => {
    const forked = await startServer({ LISTEN_FDS: "1" }, { fd3: "ipc" });
    try {
      expect((await fetch(`${forked.url}/healthz`)).status).toBe(200);
    } finally {
      await forked.stop();
    }
  });

  it.each<[string, string, () => Promise<number | "ipc" | undefined>]>([
    ["LISTEN_FDS is 2", "2", async () => undefined],
    ["fd 3 is an IPC channel", "1", async () => "ipc"],
    [
      "fd 3 is a regular file",
      "1",
      async () => openSync(path.join(projectRoot, "package.json"), "r"),
    ],
    [
      "fd 3 is a socket that does not listen",
      "1",
      async () => {
        const socket = dgram.createSocket("udp4");
        await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
        socket.unref();
        return (socket as unknown as { _handle: { fd: number } })._handle.fd;
      },
    ],
    ["fd 3 is not open", "1", async () => undefined],
  ])(
    "refuses to start for this process when %s, in one line naming LISTEN_FDS",
    async (_case, LISTEN_FDS, open) => {
      const env = { LISTEN_FDS, LISTEN_PID: "self" };
      const { code, stdout, stderr } = await runServerUntilExit(env, { fd3: await open() });
      expect(code).toBe(1);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(/^Invalid environment variable LISTEN_FDS: /);
      expect(stdout).not.toContain("listening");
    },
  );
});

describe("graceful shutdown", () => {
  it("lets an in-flight request finish after SIGTERM, then exits 0", async () => {
    const instance = await startServer();
    const socket = net.connect(instance.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    const closed = new Promise((resolve) => socket.on("close", resolve));
    await new Promise((resolve) => socket.once("connect", resolve));
    // Half a body: the request is in flight, as its 100 Continue says, until the rest arrives.
    socket.write(
      "POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
        "Content-Length: 6\r\nExpect: 100-continue\r\n\r\na=",
    );
    await expect.poll(() => answer).toContain("100 Continue");
    const exitCode = instance.stop("SIGTERM");
    await expect.poll(() => instance.output()).toContain("shutting down");
    socket.write("1234");
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 405 /);
    expect(await exitCode).toBe(0);
  });

  it("stops accepting new connections once draining", async () => {
    const instance = await startServer();
    expect(await instance.stop("SIGINT")).toBe(0);
    await expect(fetch(instance.url)).rejects.toThrow();
  });
});
