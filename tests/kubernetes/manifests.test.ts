import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { IDeployment } from "kubernetes-models/apps/v1";
import type { IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import type { INetworkPolicy, INetworkPolicyPeer } from "kubernetes-models/networking.k8s.io/v1";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1";
import type { IService, IServiceAccount } from "kubernetes-models/v1";
import { parseConfig, type Config } from "~/lib/config.server";
import { createDockerignore, readDockerfile } from "../support/dockerfile";
import { projectRoot } from "../support/server";
import {
  findObject,
  findSchemaErrors,
  getConfigMapData,
  getContainer,
  getContainerEnv,
  kubernetesDir,
  overlays,
  readSecretsExample,
  renderBase,
  renderOverlay,
  type KubernetesObject,
} from "./manifests";

// The uid docker-library's node images give their `node` user, the Dockerfile's USER.
const NODE_USER_UID = 1000;
// Past SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS the server exits at once; the margin is for a
// loop busy when its timer falls due, and the kubelet's own pace.
const GRACE_MARGIN_MS = 5_000;
// How long ingress-nginx (upstream-keepalive-timeout), nginx and AWS's ALB keep an idle connection.
const PROXY_IDLE_MS = 60_000;
// What the heap may take of the memory limit: the rest is code, buffers and sockets.
const HEAP_SHARE_OF_LIMIT = 0.75;
const PLACEHOLDER = "replace-me";
// How long before its security.txt expires an overlay must be renewed (RFC 9116 Expires).
const SECURITY_TXT_NOTICE_DAYS = 45;
const KINDS = [
  "ConfigMap",
  "Deployment",
  "HorizontalPodAutoscaler",
  "NetworkPolicy",
  "PodDisruptionBudget",
  "Secret",
  "Service",
  "ServiceAccount",
];

const mebibytes = (quantity: string | number | undefined) => {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity));
  if (!match) throw new Error(`not a memory quantity: ${quantity}`);
  const mi = 2 ** 20;
  const factor = { Ki: 1 / 1024, Mi: 1, Gi: 1024, k: 1e3 / mi, M: 1e6 / mi, G: 1e9 / mi };
  return Number(match[1]) * (match[2] ? factor[match[2] as keyof typeof factor] : 1 / mi);
};
const millicores = (quantity: string | number | undefined) =>
  String(quantity).endsWith("m") ? Number(String(quantity).slice(0, -1)) : Number(quantity) * 1000;

function getPeer(url: string) {
  const { hostname, port, protocol } = new URL(url);
  const defaults = { "http:": 80, "https:": 443, "redis:": 6379, "rediss:": 6379 };
  return { url, hostname, port: port ? Number(port) : defaults[protocol as keyof typeof defaults] };
}

const readProjectFile = (file: string) => readFileSync(path.join(projectRoot, file), "utf8");
const namespaceOf = (peer: INetworkPolicyPeer) =>
  peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"];

describe.each(overlays)("the %s overlay", (overlay) => {
  const example = readSecretsExample(overlay);
  // Values for the example's placeholders that appear nowhere else, so they can be traced.
  const secrets = Object.fromEntries(
    Object.entries(example).map(([key, value]) => [
      key,
      value.replace(PLACEHOLDER, randomBytes(24).toString("hex")),
    ]),
  );
  let objects: KubernetesObject[];
  let config: Config;
  let deployment: IDeployment;
  let pod: NonNullable<IDeployment["spec"]>["template"];
  let container: ReturnType<typeof getContainer>;

  beforeAll(() => {
    objects = renderOverlay(overlay, secrets);
    config = parseConfig(getContainerEnv(objects));
    deployment = findObject<IDeployment>(objects, "Deployment");
    pod = deployment.spec!.template;
    container = getContainer(objects);
  });

  it("renders the kinds it is meant to, each valid against the Kubernetes API's schema", () => {
    expect(objects.map((object) => object.kind).sort()).toEqual(KINDS);
    expect(findSchemaErrors(objects)).toEqual([]);
  });

  it("probes liveness and start-up on /healthz and readiness on /readyz, on the app's port", () => {
    const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe];
    const paths = probes.map((probe) => probe?.httpGet?.path);
    expect(paths).toEqual(["/healthz", "/healthz", "/readyz"]);
    for (const probe of probes) expect(probe?.httpGet?.port).toBe("http");
    // Otherwise an API slower than the probe but within its deadline would take pods out.
    expect(container.readinessProbe!.timeoutSeconds! * 1000).toBeGreaterThan(config.API_TIMEOUT_MS);
  });

  it("gives liveness the wait docs/kubernetes.md's crowd was measured against, and several misses", () => {
    const docs = readProjectFile("docs/kubernetes.md");
    const measuredAgainst = /slower than the liveness probe's (\d+) s/.exec(docs)?.[1];
    const benchWait = /CROWD_PROBE_MS \?\? ([\d_]+)/.exec(
      readProjectFile("tests/bench/crowd.ts"),
    )?.[1];
    expect(container.livenessProbe!.timeoutSeconds).toBe(Number(measuredAgainst));
    expect(Number(benchWait?.replaceAll("_", ""))).toBe(Number(measuredAgainst) * 1000);
    // A crowd is answered within seconds: it may fail one probe, not the several a restart takes.
    expect(container.livenessProbe!.failureThreshold).toBeGreaterThanOrEqual(3);
  });

  it("opens the ports the ConfigMap's PORT and METRICS_PORT say, named", () => {
    const data = getConfigMapData(objects);
    expect(data.PORT).toBeDefined();
    expect(data.METRICS_PORT).toBeDefined();
    expect(container.ports).toEqual([
      { name: "http", containerPort: config.PORT },
      { name: "metrics", containerPort: config.METRICS_PORT },
    ]);
    const runtime = readDockerfile().at(-1)!;
    const expose = runtime.instructions.find((instruction) => instruction.keyword === "EXPOSE");
    expect(Number(expose?.args)).toBe(config.PORT);
  });

  it("keeps metrics off the public Service, and tells Prometheus where to scrape each pod", () => {
    const service = findObject<IService>(objects, "Service");
    for (const port of service.spec!.ports!)
      expect([config.PORT, "http"]).toContain(port.targetPort);
    expect(pod.metadata!.annotations).toMatchObject({
      "prometheus.io/scrape": "true",
      "prometheus.io/port": String(config.METRICS_PORT),
      "prometheus.io/path": "/metrics",
    });
  });

  it("gives a stopping pod SHUTDOWN_DELAY_MS, then SHUTDOWN_TIMEOUT_MS, before the kubelet kills it", () => {
    expect(config.SHUTDOWN_DELAY_MS).toBeGreaterThan(0);
    // The server waits itself; a preStop hook's time would come on top.
    expect(container.lifecycle?.preStop).toBeUndefined();
    expect(pod.spec!.terminationGracePeriodSeconds! * 1000).toBeGreaterThanOrEqual(
      config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS + GRACE_MARGIN_MS,
    );
  });

  it(`publishes a security.txt that expires ${SECURITY_TXT_NOTICE_DAYS} days from now or later, within a year`, () => {
    const expires = config.securityTxt?.expires;
    expect(expires, "SECURITY_TXT_CONTACT and SECURITY_TXT_EXPIRES are set").toBeDefined();
    const daysLeft = (expires!.getTime() - Date.now()) / 86_400_000;
    expect(
      daysLeft,
      "days until the security.txt expires: renew SECURITY_TXT_EXPIRES",
    ).toBeGreaterThanOrEqual(SECURITY_TXT_NOTICE_DAYS);
    expect(daysLeft, "RFC 9116 asks for less than a year").toBeLessThanOrEqual(366);
  });

  it("keeps an idle connection open longer than the proxy in front does, by default too", () => {
    expect(config.KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(PROXY_IDLE_MS);
    expect(parseConfig({}).KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(PROXY_IDLE_MS);
  });

  it("requests and limits CPU and memory, and keeps the heap inside the memory limit", () => {
    const { requests, limits } = container.resources ?? {};
    expect(millicores(requests?.cpu)).toBeGreaterThan(0);
    expect(millicores(requests?.cpu)).toBeLessThanOrEqual(millicores(limits?.cpu));
    expect(mebibytes(requests?.memory)).toBeGreaterThan(0);
    expect(mebibytes(requests?.memory)).toBeLessThanOrEqual(mebibytes(limits?.memory));
    const nodeOptions = getContainerEnv(objects).NODE_OPTIONS ?? "";
    const heap = Number(/--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1]);
    expect(heap).toBeGreaterThan(0);
    expect(heap).toBeLessThanOrEqual(mebibytes(limits?.memory) * HEAP_SHARE_OF_LIMIT);
  });

  it("runs as the image's unprivileged user, read-only, without privileges, capabilities or a writable mount", () => {
    expect(readDockerfile().at(-1)!.instructions).toContainEqual({ keyword: "USER", args: "node" });
    const effective = { ...pod.spec!.securityContext, ...container.securityContext };
    expect(effective).toMatchObject({
      runAsNonRoot: true,
      runAsUser: NODE_USER_UID,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext!.capabilities!.add).toBeUndefined();
    expect(container.securityContext!.privileged).toBeFalsy();
    expect([pod.spec!.hostNetwork, pod.spec!.hostPID, pod.spec!.hostIPC].some(Boolean)).toBe(false);
    // pod.test.ts proves the server needs nothing writable.
    expect(pod.spec!.volumes).toBeUndefined();
    expect(container.volumeMounts).toBeUndefined();
  });

  it("mounts no service account token", () => {
    const account = findObject<IServiceAccount>(objects, "ServiceAccount");
    expect(account.automountServiceAccountToken).toBe(false);
    expect(pod.spec!.automountServiceAccountToken).toBe(false);
    expect(pod.spec!.serviceAccountName).toBe(account.metadata!.name);
  });

  it("puts the Secret's values in the Secret only, and none in the repository", () => {
    const secret = findObject(objects, "Secret");
    expect(Object.keys(secret.data as object).sort()).toEqual(Object.keys(example).sort());
    for (const key of Object.keys(example)) {
      expect(getConfigMapData(objects)).not.toHaveProperty(key);
      expect(container.env?.map((variable) => variable.name)).not.toContain(key);
    }
    const elsewhere = JSON.stringify(objects.filter((object) => object !== secret));
    for (const value of Object.values(secrets)) expect(elsewhere).not.toContain(value);

    for (const [key, value] of Object.entries(example)) {
      const isPlaceholder = value === PLACEHOLDER || new URL(value).password === PLACEHOLDER;
      expect(isPlaceholder, `${key} in secrets.env.example is a placeholder`).toBe(true);
    }
    const secretsFile = `kubernetes/overlays/${overlay}/secrets.env`;
    const gitIgnores = spawnSync("git", ["check-ignore", "-q", secretsFile], { cwd: projectRoot });
    expect(gitIgnores.status, `git ignores ${secretsFile}`).toBe(0);
    const dockerignore = createDockerignore(readProjectFile(".dockerignore"));
    const keptOut = `.dockerignore keeps ${secretsFile} out of the image`;
    expect(dockerignore(secretsFile), keptOut).toBe(true);

    const listing = ["ls-files", "--cached", "--others", "--exclude-standard", "kubernetes"];
    const files = execFileSync("git", listing, { cwd: projectRoot, encoding: "utf8" });
    const keys = Object.keys(example).join("|");
    for (const file of files.split("\n").filter(Boolean)) {
      const text = readProjectFile(file);
      expect(text, `${file} declares no Secret`).not.toMatch(/^kind:\s*Secret\b/m);
      for (const [, key, value] of text.matchAll(new RegExp(`\\b(${keys})\\s*[=:]\\s*(\\S*)`, "g")))
        expect(value, `${file} gives ${key} no value but a placeholder`).toContain(PLACEHOLDER);
    }
  });

  it("runs the image docs/image.md builds, with the image's own command", () => {
    const image = /docker build -t (\S+) \./.exec(readProjectFile("docs/image.md"))![1]!;
    const readYaml = (file: string) => parse(readFileSync(path.join(kubernetesDir, file), "utf8"));
    const base = readYaml("base/deployment.yaml") as IDeployment;
    expect(base.spec!.template.spec!.containers[0]!.image).toBe(image);
    const kustomization = readYaml(`overlays/${overlay}/kustomization.yaml`) as {
      images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
    };
    const replaced = kustomization.images?.find((entry) => entry.name === image);
    expect(replaced, `the overlay's images: names ${image}`).toBeDefined();
    const reference = replaced!.digest ? `@${replaced!.digest}` : `:${replaced!.newTag}`;
    expect(container.image).toBe(`${replaced!.newName ?? image}${reference}`);
    // The Dockerfile's CMD runs node directly, so SIGTERM reaches the server.
    expect(container.command).toBeUndefined();
    expect(container.args).toBeUndefined();
  });

  it("runs at least two pods, spread over nodes, with none taken out before its successor is ready", () => {
    const labels = pod.metadata!.labels;
    const autoscaler = findObject<IHorizontalPodAutoscaler>(objects, "HorizontalPodAutoscaler");
    // The autoscaler owns the count: a replicas field would reset it at every apply.
    expect(deployment.spec!.replicas).toBeUndefined();
    expect(autoscaler.spec!.scaleTargetRef).toMatchObject({
      kind: "Deployment",
      name: deployment.metadata!.name,
    });
    expect(autoscaler.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    expect(autoscaler.spec!.maxReplicas).toBeGreaterThanOrEqual(autoscaler.spec!.minReplicas!);
    expect(deployment.spec!.strategy!.rollingUpdate!.maxUnavailable).toBe(0);
    const budget = findObject<IPodDisruptionBudget>(objects, "PodDisruptionBudget");
    expect(budget.spec!.maxUnavailable).toBe(1);
    expect(budget.spec!.selector!.matchLabels).toEqual(labels);
    expect(pod.spec!.topologySpreadConstraints).toContainEqual(
      expect.objectContaining({
        topologyKey: "kubernetes.io/hostname",
        whenUnsatisfiable: "DoNotSchedule",
        labelSelector: { matchLabels: labels },
      }),
    );
    expect(deployment.spec!.selector.matchLabels).toEqual(labels);
    expect(findObject<IService>(objects, "Service").spec!.selector).toEqual(labels);
    expect(
      findObject<INetworkPolicy>(objects, "NetworkPolicy").spec!.podSelector!.matchLabels,
    ).toEqual(labels);
  });

  it("lets in the ingress controller's namespace to the app's port and one namespace to the metrics port, no one else", () => {
    const policy = findObject<INetworkPolicy>(objects, "NetworkPolicy").spec!;
    expect(policy.policyTypes).toEqual(["Ingress", "Egress"]);
    const ports = policy.ingress!.map((rule) => rule.ports?.map((port) => port.port));
    expect(ports).toEqual([["http"], ["metrics"]]);
    for (const rule of policy.ingress!) {
      expect(rule.from).toHaveLength(1);
      expect(rule.from![0]!.ipBlock).toBeUndefined();
      expect(rule.from![0]!.podSelector).toBeUndefined();
      expect(namespaceOf(rule.from![0]!)).toMatch(/\S/);
    }
  });

  it("lets out DNS and each configured peer on its port, nothing else", () => {
    const env = getContainerEnv(objects);
    const peerUrls = [
      env.API_BASE_URL,
      env.OIDC_ISSUER,
      env.OTEL_EXPORTER_OTLP_ENDPOINT,
      env.SESSION_REDIS_URL,
      env.RATE_LIMIT_REDIS_URL,
    ];
    const peers = peerUrls.filter((url) => url !== undefined).map(getPeer);
    const egress = findObject<INetworkPolicy>(objects, "NetworkPolicy").spec!.egress!;
    for (const rule of egress) {
      expect(rule.to?.length, "each rule names its destinations").toBeGreaterThan(0);
      expect(rule.ports?.length, "each rule names its ports").toBeGreaterThan(0);
    }
    const isDns = (rule: (typeof egress)[number]) =>
      rule.ports!.every((port) => port.port === 53) &&
      rule.to!.every((peer) => peer.podSelector?.matchLabels?.["k8s-app"] === "kube-dns");
    expect(egress.filter(isDns)).toHaveLength(1);
    for (const peer of peers) {
      // In the cluster, a Service's host names its namespace: <service>.<namespace>.svc...
      const namespace = /^[^.]+\.([^.]+)\.svc(\.|$)/.exec(peer.hostname)?.[1];
      const reaching = egress.filter(
        (rule) =>
          rule.ports!.some(
            (port) => port.port === peer.port && (port.protocol ?? "TCP") === "TCP",
          ) &&
          rule.to!.some((to) =>
            namespace ? namespaceOf(to) === namespace : to.ipBlock !== undefined,
          ),
      );
      expect(reaching.length, `a rule lets out to ${peer.url}`).toBeGreaterThan(0);
    }
    const peerPorts = new Set(peers.map((peer) => peer.port));
    for (const rule of egress.filter((rule) => !isDns(rule)))
      for (const port of rule.ports!)
        expect(peerPorts, `port ${port.port} is a peer's`).toContain(port.port);
  });
});

describe.each(["base", ...overlays])("the autoscaler of %s", (name) => {
  it("scales on a resource's utilisation only of pods that request it", () => {
    const objects = name === "base" ? renderBase() : renderOverlay(name);
    const autoscaler = findObject<IHorizontalPodAutoscaler>(objects, "HorizontalPodAutoscaler");
    const containers = findObject<IDeployment>(objects, "Deployment").spec!.template.spec!
      .containers;
    const utilisations = (autoscaler.spec!.metrics ?? []).filter(
      (metric) => metric.type === "Resource" && metric.resource!.target.type === "Utilization",
    );
    expect(utilisations.length).toBeGreaterThan(0);
    for (const { resource } of utilisations)
      for (const container of containers)
        expect(
          container.resources?.requests?.[resource!.name],
          `${container.name} requests ${resource!.name}`,
        ).toBeDefined();
  });
});

describe("validation against the Kubernetes API's schema", () => {
  it("fails a wrong type, a missing required field, an unknown field and an unknown kind", () => {
    const deployment = findObject<IDeployment>(renderOverlay(overlays[0]!), "Deployment");
    const broken = (name: string, change: (copy: IDeployment) => void) => {
      const copy = structuredClone(deployment);
      copy.metadata!.name = name;
      change(copy);
      return copy as unknown as KubernetesObject;
    };
    const errors = findSchemaErrors([
      broken("wrong-type", (copy) => Object.assign(copy.spec!, { replicas: "three" })),
      broken(
        "no-name",
        (copy) => delete (copy.spec!.template.spec!.containers[0] as { name?: string }).name,
      ),
      broken("misspelt", (copy) =>
        Object.assign(copy.spec!.template.spec!.containers[0]!.securityContext!, {
          readOnlyRootFileSystem: true,
        }),
      ),
      broken("unknown-kind", (copy) => Object.assign(copy, { kind: "DaemonSet" })),
    ]);
    expect(errors.find((error) => error.includes("wrong-type"))).toMatch(/replicas/);
    expect(errors.find((error) => error.includes("no-name"))).toMatch(/name/);
    expect(errors.find((error) => error.includes("misspelt"))).toMatch(/readOnlyRootFileSystem/);
    expect(errors.find((error) => error.includes("unknown-kind"))).toMatch(/DaemonSet/);
  });
});
