import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { requireSystemBinary } from "../toolchain/system-packages";
import { reservePort, waitForAnswer, type ReservedPort } from "./server";

export type LoadBalancer = { url: string; stop: () => Promise<void> };

/**
 * nginx on loopback in front of the given ports, as a production load balancer would be set
 * up: it keeps the visitor's Host header, keeps idle connections to the instances open for its
 * default 60 s, and retries idempotent requests on the next instance when one refuses the
 * connection or is going away. It accepts on `listener` (reserved here unless given: a test whose
 * instances must know the balancer's address, their ORIGIN, reserves it first). With `cache`, it
 * is also a shared cache that keeps any answer whose headers allow it for 10 minutes, saying in
 * `X-Cache-Status` whether it came from there (HIT) or not (MISS, BYPASS, EXPIRED …).
 */
export async function startNginx(
  upstreamPorts: number[],
  listener?: ReservedPort,
  { cache = false } = {},
): Promise<LoadBalancer> {
  const nginx = requireSystemBinary("nginx-light");
  listener ??= await reservePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "nginx-"));
  // nginx's workers may run as another user than the test (root starts them as nobody).
  chmodSync(dir, 0o777);
  for (const sub of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi", "cache"])
    mkdirSync(path.join(dir, sub), 0o777);
  const config = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${cache ? `proxy_cache_path ${dir}/cache keys_zone=shared:1m;` : ""}
  upstream app {
    ${upstreamPorts.map((p) => `server 127.0.0.1:${p} max_fails=0;`).join("\n    ")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${listener.port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 2;
      ${cache ? "proxy_cache shared; proxy_cache_valid any 10m; add_header X-Cache-Status $upstream_cache_status always;" : ""}
    }
  }
}`;
  const configPath = path.join(dir, "nginx.conf");
  writeFileSync(configPath, config);
  // The socket the listener holds is fd 3 in nginx, as on a binary upgrade: it is never let go.
  const child: ChildProcess = spawn(
    nginx,
    ["-p", dir, "-c", configPath, "-e", path.join(dir, "error.log"), "-g", "daemon off;"],
    {
      stdio: ["ignore", "ignore", "pipe", listener.fd],
      env: { NGINX: "3;" } as unknown as NodeJS.ProcessEnv,
    },
  );
  listener.close();
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const url = listener.url;
  await waitForAnswer(`${url}/healthz`, () =>
    child.exitCode === null ? undefined : `nginx exited with ${child.exitCode}: ${stderr}`,
  );
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGQUIT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
