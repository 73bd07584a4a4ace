import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelayingProxy } from "../support/delaying-proxy";
import { startNginx, type LoadBalancer } from "../support/nginx";
import { startServer, type RunningServer } from "../support/server";

/** Sets a theme through `base`, and answers the cookies to send back. */
async function setTheme(base: string, theme: string, headers: Record<string, string> = {}) {
  const post = await fetch(`${base}/preferences/theme`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ theme, redirectTo: "/" }),
  });
  expect(post.status).toBe(303);
  return post.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
}

describe("two instances with the same secret behind nginx", () => {
  let first: RunningServer;
  let second: RunningServer;
  let balancer: LoadBalancer;

  beforeAll(async () => {
    [first, second] = await Promise.all([startServer(), startServer()]);
    balancer = await startNginx([first.port, second.port]);
  });

  afterAll(async () => {
    await balancer?.stop();
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it("honours on one instance the theme and flash cookies set through the other", async () => {
    const cookies = await setTheme(first.url, "dark");
    const page = await fetch(`${second.url}/`, { headers: { cookie: cookies } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-theme="dark"');
    expect(html).toMatch(/role="status"><p>Theme set to Dark\.<\/p>/);
  });

  it("keeps the preference whichever instance nginx picks", async () => {
    const sameOrigin = { origin: balancer.url, "sec-fetch-site": "same-origin" };
    const cookies = await setTheme(balancer.url, "light", sameOrigin);
    for (let i = 0; i < 6; i++) {
      const html = await (await fetch(`${balancer.url}/`, { headers: { cookie: cookies } })).text();
      expect(html).toContain('data-theme="light"');
    }
  });
});

describe("nginx's idle connections to an instance", () => {
  // Longer than the keep-alive Node and many servers close idle connections after (5 s).
  const PAUSE_MS = 6_000;

  it("are kept by the instance longer than nginx keeps them: reused after a pause, never closed under it", async () => {
    const server = await startServer();
    const link = await startDelayingProxy({ port: server.port });
    const balancer = await startNginx([link.port]);
    try {
      const opened = link.connections();
      for (const pause of [0, PAUSE_MS]) {
        await sleep(pause);
        const response = await fetch(`${balancer.url}/healthz`);
        expect((await response.arrayBuffer(), response.status)).toBe(200);
      }
      expect(link.connections()).toBe(opened);
    } finally {
      await balancer.stop();
      await Promise.all([link.close(), server.stop()]);
    }
  });
});

describe("a rolling restart behind nginx", () => {
  it("loses no request when one instance gets SIGTERM under steady load", async () => {
    const [leaving, staying] = await Promise.all([startServer(), startServer()]);
    const balancer = await startNginx([leaving.port, staying.port]);
    try {
      // Counted, not timed: requests go on until the instance has exited and many more have been
      // answered since its SIGTERM, however long that takes on a busy machine.
      const statuses = new Map<number | string, number>();
      let sigtermSent = false;
      let exited = false;
      let sinceSigterm = 0;
      const client = async () => {
        while (!exited || sinceSigterm < 100) {
          const status = await fetch(`${balancer.url}/`).then(
            async (r) => (await r.arrayBuffer(), r.status),
            (error: Error) => error.message,
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (sigtermSent) sinceSigterm++;
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, client));
      await expect.poll(() => statuses.get(200) ?? 0).toBeGreaterThan(50);
      sigtermSent = true;
      const exitCode = leaving.stop("SIGTERM").finally(() => (exited = true));
      await load;

      expect(await exitCode).toBe(0);
      expect([...statuses.keys()]).toEqual([200]);
    } finally {
      await balancer.stop();
      await Promise.all([leaving.stop(), staying.stop()]);
    }
  });
});
