import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNginx, type LoadBalancer } from "../support/nginx";
import { startServer, type RunningServer } from "../support/server";

const form = (theme: string) => new URLSearchParams({ theme, redirectTo: "/" }).toString();

function cookieHeader(response: Response) {
  return response.headers
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
    const post = await fetch(`${first.url}/preferences/theme`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form("dark"),
    });
    expect(post.status).toBe(303);
    const cookies = cookieHeader(post);

    const page = await fetch(`${second.url}/`, { headers: { cookie: cookies } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-theme="dark"');
    expect(html).toMatch(/role="status"><p>Theme set to Dark\.<\/p>/);
  });

  it("keeps the preference whichever instance nginx picks", async () => {
    const post = await fetch(`${balancer.url}/preferences/theme`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: balancer.url,
        "sec-fetch-site": "same-origin",
      },
      body: form("light"),
    });
    expect(post.status).toBe(303);
    const cookies = cookieHeader(post);
    for (let i = 0; i < 6; i++) {
      const html = await (await fetch(`${balancer.url}/`, { headers: { cookie: cookies } })).text();
      expect(html).toContain('data-theme="light"');
    }
  });
});

describe("a rolling restart behind nginx", () => {
  it("loses no request when one instance gets SIGTERM under steady load", async () => {
    const [leaving, staying] = await Promise.all([startServer(), startServer()]);
    const balancer = await startNginx([leaving.port, staying.port]);
    try {
      const statuses = new Map<number | string, number>();
      const deadline = Date.now() + 3_000;
      const client = async () => {
        while (Date.now() < deadline) {
          const status = await fetch(`${balancer.url}/`).then(
            async (r) => (await r.arrayBuffer(), r.status),
            (error: Error) => error.message,
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, client));
      await new Promise((r) => setTimeout(r, 1_000));
      const exitCode = leaving.stop("SIGTERM");
      await load;

      expect(await exitCode).toBe(0);
      expect([...statuses.keys()]).toEqual([200]);
      expect(statuses.get(200)).toBeGreaterThan(50);
    } finally {
      await balancer.stop();
      await Promise.all([leaving.stop(), staying.stop()]);
    }
  });
});
