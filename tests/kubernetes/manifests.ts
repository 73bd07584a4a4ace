import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { parseAllDocuments } from "yaml";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Secret, Service, ServiceAccount, type IContainer } from "kubernetes-models/v1";
import { projectRoot } from "../support/server";

export const kubernetesDir = path.join(projectRoot, "kubernetes");

export const overlays = readdirSync(path.join(kubernetesDir, "overlays"));

export type KubernetesObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
};

// Each model's type is `I<kind>`, from the same module.
const models = [
  { model: ConfigMap, from: "kubernetes-models/v1" },
  { model: Secret, from: "kubernetes-models/v1" },
  { model: Service, from: "kubernetes-models/v1" },
  { model: ServiceAccount, from: "kubernetes-models/v1" },
  { model: Deployment, from: "kubernetes-models/apps/v1" },
  { model: HorizontalPodAutoscaler, from: "kubernetes-models/autoscaling/v2" },
  { model: NetworkPolicy, from: "kubernetes-models/networking.k8s.io/v1" },
  { model: PodDisruptionBudget, from: "kubernetes-models/policy/v1" },
];

function getKubectl() {
  const kubectl = process.env.KUBECTL_PATH || "kubectl";
  const found = path.isAbsolute(kubectl)
    ? existsSync(kubectl)
    : (process.env.PATH ?? "")
        .split(path.delimiter)
        .some((dir) => existsSync(path.join(dir, kubectl)));
  if (!found)
    throw new Error(
      `${kubectl} not found (the Kubernetes tests render kubernetes/overlays/ with \`kubectl kustomize\`): install kubectl 1.27 or newer, or set KUBECTL_PATH.`,
    );
  return kubectl;
}

export function parseEnvFile(text: string) {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => line.trim() && !line.trimStart().startsWith("#"))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

export function readSecretsExample(overlay: string) {
  const file = path.join(kubernetesDir, "overlays", overlay, "secrets.env.example");
  return parseEnvFile(readFileSync(file, "utf8"));
}

/** An overlay rendered from a copy of kubernetes/ whose secrets.env holds `secrets`. */
export function renderOverlay(
  overlay: string,
  secrets = readSecretsExample(overlay),
): KubernetesObject[] {
  const copy = mkdtempSync(path.join(os.tmpdir(), "kubernetes-"));
  try {
    // An operator's own secrets.env stays where it is.
    cpSync(kubernetesDir, copy, {
      recursive: true,
      filter: (file) => path.basename(file) !== "secrets.env",
    });
    const lines = Object.entries(secrets).map(([key, value]) => `${key}=${value}\n`);
    writeFileSync(path.join(copy, "overlays", overlay, "secrets.env"), lines.join(""));
    const objects = kustomize(path.join(copy, "overlays", overlay));
    // kustomize folds long base64 values over lines, which the API server's decoder skips.
    for (const secret of objects.filter((object) => object.kind === "Secret"))
      for (const [key, value] of Object.entries((secret.data ?? {}) as Record<string, string>))
        (secret.data as Record<string, string>)[key] = value.replace(/\s/g, "");
    return objects;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** `kubectl kustomize` of the base alone, as an overlay finds it. */
export function renderBase(): KubernetesObject[] {
  return kustomize(path.join(kubernetesDir, "base"));
}

function kustomize(dir: string) {
  const yaml = execFileSync(getKubectl(), ["kustomize", dir], { encoding: "utf8" });
  return parseAllDocuments(yaml).map((document) => document.toJS() as KubernetesObject);
}

export function findObject<T = KubernetesObject>(objects: KubernetesObject[], kind: string): T {
  const found = objects.filter((object) => object.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as T;
}

export function getContainer(objects: KubernetesObject[]): IContainer {
  const containers = findObject<IDeployment>(objects, "Deployment").spec!.template.spec!.containers;
  if (containers.length !== 1)
    throw new Error(`expected one container, rendered ${containers.length}`);
  return containers[0]!;
}

export function getConfigMapData(objects: KubernetesObject[]) {
  return (findObject(objects, "ConfigMap").data ?? {}) as Record<string, string>;
}

/** The container's environment as the kubelet makes it: `envFrom` in order, then `env`. */
export function getContainerEnv(objects: KubernetesObject[]) {
  const container = getContainer(objects);
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef)
      Object.assign(env, getNamed(objects, "ConfigMap", source.configMapRef.name).data);
    if (source.secretRef) {
      const data = getNamed(objects, "Secret", source.secretRef.name).data ?? {};
      for (const [key, value] of Object.entries(data as Record<string, string>))
        env[key] = Buffer.from(value, "base64").toString("utf8");
    }
  }
  for (const variable of container.env ?? []) env[variable.name] = variable.value ?? "";
  return env;
}

function getNamed(objects: KubernetesObject[], kind: string, name: string | undefined) {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found)
    throw new Error(`the container reads ${kind} ${name}, which the overlay does not render`);
  return found;
}

/**
 * Every problem the Kubernetes API would find offline: kubernetes-models' schemas, and unknown
 * fields, which those let through but the API server refuses: TypeScript's excess property check
 * against the same package's types finds those.
 */
export function findSchemaErrors(objects: KubernetesObject[]): string[] {
  const errors: string[] = [];
  const lines: string[] = [];
  const typed: KubernetesObject[] = [];
  for (const [index, object] of objects.entries()) {
    const name = `${object.kind} ${object.metadata?.name}`;
    const entry = models.find(
      ({ model }) => model.apiVersion === object.apiVersion && model.kind === object.kind,
    );
    if (!entry) {
      errors.push(`${name}: ${object.apiVersion} ${object.kind} is no kind these manifests use`);
      continue;
    }
    try {
      new entry.model(object as never).validate();
    } catch (error) {
      errors.push(`${name}: ${(error as Error).message}`);
    }
    lines.push(`import type { I${entry.model.kind} as T${index} } from "${entry.from}";`);
    lines.push(`export const object${index}: T${index} = ${JSON.stringify(object)};`);
    typed.push(object);
  }
  errors.push(...findUnknownFields(lines.join("\n"), typed));
  return errors;
}

function findUnknownFields(source: string, objects: KubernetesObject[]) {
  const file = path.join(projectRoot, "tests/kubernetes/rendered-objects.ts");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, version) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line ?? 0;
    const object = objects[Math.floor(line / 2)];
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
    return `${object?.kind} ${object?.metadata?.name}: ${message}`;
  });
}
