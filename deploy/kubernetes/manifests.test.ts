import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml, parseAllDocuments, stringify as stringifyYaml } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { ENV_SECTIONS, readEnv } from "../../server/platform/env";
import { SECKILL_ENDPOINT, TRPC_ENDPOINT } from "../../server/platform/endpoints";
import { readFrontDoorSettings } from "../../server/testing/nginx";
import { METRICS_ENDPOINTS, servesMetricsAt, type ProcessKind } from "../metrics-endpoints";

// The Kubernetes manifests, checked offline: each object against the Kubernetes schemas (and no
// field they do not define), and against the app: its variables, its ports, its health path, the
// routing rule of docs/deploy.md. Then what `kubectl apply -k` applies, built by kubectl's own
// kustomize: the same schemas, the "restricted" Pod Security level, the spread of the pods, their
// scraping, and the migration Job's name across releases.

const folder = import.meta.dirname;
const root = path.resolve(folder, "../..");
const KUSTOMIZATION = "kustomization.yaml";
/** kustomize's own configuration (the migration Job's name reference), not a manifest. */
const KUSTOMIZE_CONFIG = "kustomizeconfig.yaml";
/** Left out of the kustomization, so an apply never overwrites the real Secret. */
const SECRET_TEMPLATE = "secret.example.yaml";
/** The ingress controller's own ConfigMap: in the controller's namespace, so not in the kustomization. */
const CONTROLLER_CONFIG = "ingress-nginx-controller.yaml";
const IMAGE = "flashsale-app";

/** Set in the Secret, never the ConfigMap: keys, and the mail server's URL (it carries a password). */
const SECRET_VARIABLES = ["DATABASE_URL", "REDIS_URL", "SESSION_SECRET", "REAL_NAME_KEY_SECRET", "SMTP_URL"];

/** What a production deploy must set (docs/deploy.md, "Required in production"). */
const PRODUCTION_MUST_SET = ["NODE_ENV", "DATABASE_URL", "REDIS_URL", "SESSION_SECRET", "PUBLIC_BASE_URL", "PAYMENT_PROVIDERS"];

interface ValidatingModel {
  validate(): void;
}
type ModelClass = (new (data: never) => ValidatingModel) & { prototype: ValidatingModel };

const MODELS: Record<string, ModelClass> = {
  "apps/v1 Deployment": Deployment,
  "autoscaling/v2 HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "batch/v1 Job": Job,
  "networking.k8s.io/v1 Ingress": Ingress,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "v1 ConfigMap": ConfigMap,
  "v1 Namespace": Namespace,
  "v1 Secret": Secret,
  "v1 Service": Service,
};

// Only the fields these manifests use; the test reads them off the parsed YAML.
type Labels = Record<string, string>;
type PortRef = string | number;
interface Probe {
  httpGet?: { path: string; port: PortRef };
  tcpSocket?: { port: PortRef };
  exec?: unknown;
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string };
  appArmorProfile?: { type: string };
  seLinuxOptions?: Record<string, string>;
  windowsOptions?: { hostProcess?: boolean };
  procMount?: string;
  sysctls?: { name: string }[];
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string> };
  startupProbe?: Probe & ProbeTiming;
  readinessProbe?: Probe;
  livenessProbe?: Probe & ProbeTiming;
  securityContext?: SecurityContext;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
}
interface ProbeTiming {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  securityContext?: SecurityContext;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  volumes?: Record<string, unknown>[];
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: {
    topologyKey: string;
    maxSkew: number;
    whenUnsatisfiable: string;
    labelSelector?: { matchLabels?: Labels };
  }[];
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Labels } & Labels;
    template?: { metadata: { labels: Labels; annotations?: Record<string, string> }; spec: PodSpec };
    clusterIP?: string;
    ttlSecondsAfterFinished?: number;
    ports?: { name?: string; port: number; targetPort?: PortRef }[];
    ingressClassName?: string;
    tls?: { hosts: string[]; secretName: string }[];
    rules?: {
      host?: string;
      http: {
        paths: { path: string; pathType: string; backend: { service: { name: string; port: { name?: string; number?: number } } } }[];
      };
    }[];
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    metrics?: { type: string; resource?: { name: string } }[];
  };
}
interface Located {
  file: string;
  manifest: Manifest;
}

function parseYamlFile(file: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(path.join(folder, file), "utf8"));
  if (!Array.isArray(documents)) return [];
  for (const document of documents) if (document.errors.length) throw new Error(`${file}: ${document.errors[0]!.message}`);
  return documents.map((document) => document.toJS() as unknown).filter((value) => value !== null);
}

const yamlFiles = readdirSync(folder)
  .filter((name) => name.endsWith(".yaml"))
  .sort();
const objects: Located[] = yamlFiles
  .filter((file) => file !== KUSTOMIZATION && file !== KUSTOMIZE_CONFIG)
  .flatMap((file) => parseYamlFile(file).map((manifest) => ({ file, manifest: manifest as Manifest })));
interface Kustomization {
  namespace: string;
  resources: string[];
  images: { name: string; newName?: string; newTag?: string; digest?: string }[];
  configurations?: string[];
}
const kustomization = parseYamlFile(KUSTOMIZATION)[0] as Kustomization;

// The app's objects: what the kustomization applies, and the Secret.
const appObjects = objects.filter((o) => o.file !== CONTROLLER_CONFIG);
const named = (kind: string) => appObjects.filter((o) => o.manifest.kind === kind).map((o) => o.manifest);
const deployments = named("Deployment");
const workloads = [...deployments, ...named("Job")];
const configMaps = new Map(named("ConfigMap").map((m) => [m.metadata.name, m.data ?? {}]));
const secrets = new Map(named("Secret").map((m) => [m.metadata.name, { ...m.data, ...m.stringData }]));
const containersOf = (workload: Manifest) => workload.spec!.template!.spec.containers;
const scripts = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

/**
 * The npm script whose command line a container runs, which names its part of the system. Run
 * by node itself, not through npm: as a container's PID 1, npm exits on SIGTERM without passing
 * it on, and the process's own shutdown never runs.
 */
function scriptOf(container: Container): string {
  const command = (container.command ?? []).join(" ");
  const script = Object.keys(scripts).find((name) => scripts[name] === command);
  if (!script || !command.startsWith("node "))
    throw new Error(
      `${container.name}: command must be a package.json script's node command line, got ${JSON.stringify(container.command)}`,
    );
  return script;
}
function deploymentRunning(script: string): Manifest {
  const found = deployments.filter((d) => containersOf(d).some((c) => scriptOf(c) === script));
  expect(found, `one Deployment runs npm run ${script}`).toHaveLength(1);
  return found[0]!;
}

/** The environment a container starts with: its envFrom sources in order, then its env entries. */
function environmentOf(container: Container): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const values = source.configMapRef ? configMaps.get(source.configMapRef.name) : secrets.get(source.secretRef!.name);
    expect(values, `${container.name}: envFrom names ${JSON.stringify(source)}, which no manifest here defines`).toBeDefined();
    Object.assign(environment, values);
  }
  for (const entry of container.env ?? []) {
    expect(entry.valueFrom, `${container.name}: ${entry.name} takes a literal value`).toBeUndefined();
    environment[entry.name] = entry.value ?? "";
  }
  return environment;
}

const labelsMatch = (selector: Labels, labels: Labels) => Object.entries(selector).every(([key, value]) => labels[key] === value);
const selectedDeployments = (selector: Labels) => deployments.filter((d) => labelsMatch(selector, d.spec!.template!.metadata.labels));
const containerPortFor = (container: Container, port: PortRef) =>
  container.ports?.find((p) => (typeof port === "string" ? p.name === port : p.containerPort === port));

/**
 * The fields of `manifest` its schema does not define, as paths. The models' schemas accept
 * unknown fields, so the schema's own validator runs over a proxy that records which fields it
 * reads: it reads every field it defines, and enumerates only free-form maps (labels, data).
 */
function fieldsUnknownToSchema(model: ModelClass, manifest: object): string[] {
  const read = new Map<object, Set<PropertyKey>>();
  const maps = new Set<object>();
  const proxies = new WeakMap<object, object>();
  const recording = (value: unknown): unknown => {
    if (value === null || typeof value !== "object") return value;
    const known = proxies.get(value);
    if (known) return known;
    read.set(value, new Set());
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        read.get(target)!.add(key);
        return recording(Reflect.get(target, key, receiver));
      },
      has(target, key) {
        read.get(target)!.add(key);
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        maps.add(target);
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  model.prototype.validate.call(recording(manifest));
  const unknown: string[] = [];
  const walk = (value: unknown, at: string) => {
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${at}[${i}]`));
    for (const [key, child] of Object.entries(value)) {
      if (maps.has(value) || read.get(value)?.has(key)) walk(child, `${at}.${key}`);
      else unknown.push(`${at}.${key}`.replace(/^\./, ""));
    }
  };
  walk(manifest, "");
  return unknown;
}

describe("Kubernetes manifests (deploy/kubernetes)", () => {
  it("holds each kind the deployment needs", () => {
    const kinds = new Set(objects.map((o) => o.manifest.kind));
    for (const kind of [
      "Namespace",
      "ConfigMap",
      "Secret",
      "Job",
      "Deployment",
      "Service",
      "Ingress",
      "HorizontalPodAutoscaler",
      "PodDisruptionBudget",
    ])
      expect(kinds, kind).toContain(kind);
  });

  it.each(objects.map((o) => [`${o.file}: ${o.manifest.kind} ${o.manifest.metadata?.name}`, o] as const))(
    "%s is valid against its schema, with no field it does not define",
    (_, { manifest }) => {
      const model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
      expect(model, `a schema for ${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      expect(() => new model!(manifest as never).validate()).not.toThrow();
      expect(fieldsUnknownToSchema(model!, manifest)).toEqual([]);
    },
  );

  it("the strict check finds a misspelt field", () => {
    const web = structuredClone(deploymentRunning("web")) as unknown as {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    const container = web.spec.template.spec.containers[0]!;
    container.readinesProbe = container.readinessProbe;
    delete container.readinessProbe;
    expect(fieldsUnknownToSchema(Deployment, web)).toEqual(["spec.template.spec.containers[0].readinesProbe"]);
  });

  it("the kustomization lists every manifest but the Secret template, in one namespace, with one image", () => {
    expect(Object.keys(kustomization).sort()).toEqual([
      "apiVersion",
      "configMapGenerator",
      "configurations",
      "images",
      "kind",
      "namespace",
      "replacements",
      "resources",
    ]);
    expect(kustomization.configurations).toEqual([KUSTOMIZE_CONFIG]);
    expect([...kustomization.resources].sort()).toEqual(
      yamlFiles.filter((file) => ![KUSTOMIZATION, KUSTOMIZE_CONFIG, SECRET_TEMPLATE, CONTROLLER_CONFIG].includes(file)),
    );
    expect(named("Namespace").map((n) => n.metadata.name)).toEqual([kustomization.namespace]);
    expect(named("Secret").map((s) => s.metadata.namespace)).toEqual([kustomization.namespace]);
    expect(kustomization.images.map((image) => image.name)).toEqual([IMAGE]);
    for (const workload of workloads) for (const container of containersOf(workload)) expect(container.image, container.name).toBe(IMAGE);
  });

  it("each container runs an npm script's node command line; the Job migrates, one Deployment each runs web, seckill, worker", () => {
    for (const workload of workloads)
      for (const container of containersOf(workload)) expect(Object.keys(scripts), container.name).toContain(scriptOf(container));
    expect(named("Job").flatMap((job) => containersOf(job).map(scriptOf))).toEqual(["db:migrate"]);
    for (const script of ["web", "seckill", "worker"]) deploymentRunning(script);
  });

  it("gives each pod a grace period longer than its drain: the worker's WORKER_DRAIN_TIMEOUT_MS, web's and seckill's 10 s after the preStop pause", () => {
    const drainSeconds = (script: string) => (script === "worker" ? readEnv({}).WORKER_DRAIN_TIMEOUT_MS / 1000 : 10);
    for (const script of ["web", "seckill", "worker"]) {
      const pod = deploymentRunning(script).spec!.template!.spec;
      const [program, pauseSeconds] = pod.containers[0]!.lifecycle?.preStop?.exec?.command ?? [];
      const pause = program === "sleep" ? Number(pauseSeconds) : 0;
      expect(pod.terminationGracePeriodSeconds ?? 30, script).toBeGreaterThanOrEqual(pause + drainSeconds(script) + 5);
    }
  });

  it("keeps the secrets (with the mail server's password) in the Secret, the mail's sender in the ConfigMap", () => {
    const secretKeys = [...secrets.values()].flatMap((values) => Object.keys(values));
    const configKeys = [...configMaps.values()].flatMap((values) => Object.keys(values));
    for (const name of SECRET_VARIABLES) {
      expect(secretKeys, name).toContain(name);
      expect(configKeys, name).not.toContain(name);
    }
    expect(configKeys).toContain("MAIL_FROM");
    for (const workload of workloads) {
      for (const container of containersOf(workload))
        expect(readEnv(environmentOf(container)).SMTP_URL, container.name).toMatch(/^smtps?:\/\//);
    }
  });

  it("sets only variables server/platform/env.ts knows, the production-required ones on every container, and no rate limits", () => {
    const known = new Set(Object.values(ENV_SECTIONS).flat());
    for (const required of PRODUCTION_MUST_SET) expect(ENV_SECTIONS.required, required).toContain(required);
    const set = [...configMaps.values(), ...secrets.values()].flatMap((values) => Object.keys(values));
    for (const workload of workloads) for (const container of containersOf(workload)) set.push(...(container.env ?? []).map((e) => e.name));
    expect(set.filter((name) => !known.has(name))).toEqual([]);
    // Being renamed elsewhere; the defaults serve meanwhile.
    expect(set.filter((name) => name.startsWith("RATE_LIMIT_"))).toEqual([]);
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        const environment = environmentOf(container);
        expect(
          PRODUCTION_MUST_SET.filter((name) => !(name in environment)),
          container.name,
        ).toEqual([]);
        expect(() => readEnv(environment), container.name).not.toThrow();
        expect(readEnv(environment).NODE_ENV).toBe("production");
      }
    }
  });

  it("the app pods leave the schema to the migration Job", () => {
    for (const deployment of deployments)
      for (const container of containersOf(deployment)) expect(environmentOf(container).MIGRATE_ON_START, container.name).toBe("0");
  });

  it("web and seckill listen on their container port and probe a path they serve on it", () => {
    const served = {
      web: (probePath: string) => existsSync(path.join(root, "app", probePath, "route.ts")),
      seckill: (probePath: string) =>
        readFileSync(path.join(root, "server/seckill-service/server.ts"), "utf8").includes(`pathname === "${probePath}"`),
    };
    for (const [script, listensOn] of [
      ["web", "PORT"],
      ["seckill", "SECKILL_PORT"],
    ] as const) {
      const container = containersOf(deploymentRunning(script)).find((c) => scriptOf(c) === script)!;
      const port = readEnv(environmentOf(container))[listensOn];
      expect(
        container.ports?.map((p) => p.containerPort),
        script,
      ).toEqual([port]);
      // Readiness asks what the purchase path needs (not MySQL), liveness only that the process answers.
      expect(container.readinessProbe?.httpGet?.path, `${script} readiness`).toBe("/api/ready");
      expect(container.livenessProbe?.httpGet?.path, `${script} liveness`).toBe("/api/live");
      for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
        if (!probe) continue;
        const target = probe.httpGet ?? probe.tcpSocket;
        expect(target, `${script}: a probe over HTTP or TCP`).toBeDefined();
        expect(containerPortFor(container, target!.port), `${script} probes port ${target!.port}`).toBeDefined();
        if (probe.httpGet) expect(served[script](probe.httpGet.path), `${script} serves ${probe.httpGet.path}`).toBe(true);
      }
    }
  });

  it("each Service selects exactly one Deployment and targets one of its container ports", () => {
    for (const deployment of deployments)
      expect(
        labelsMatch(deployment.spec!.selector!.matchLabels!, deployment.spec!.template!.metadata.labels),
        deployment.metadata.name,
      ).toBe(true);
    for (const service of named("Service")) {
      const selected = selectedDeployments(service.spec!.selector as Labels);
      expect(
        selected.map((d) => d.metadata.name),
        service.metadata.name,
      ).toHaveLength(1);
      for (const port of service.spec!.ports!) {
        expect(
          containersOf(selected[0]!).some((c) => containerPortFor(c, port.targetPort ?? port.port)),
          `${service.metadata.name} port ${port.port}`,
        ).toBe(true);
      }
    }
  });

  it(`the Ingress sends ${SECKILL_ENDPOINT}/ to the seckill Service's port and the rest to web`, () => {
    const serviceRunning = (script: string) => {
      const deployment = deploymentRunning(script);
      const services = named("Service").filter((s) => selectedDeployments(s.spec!.selector as Labels).includes(deployment));
      expect(services, `one Service in front of ${script}`).toHaveLength(1);
      return services[0]!;
    };
    const paths = named("Ingress").flatMap((ingress) => ingress.spec!.rules!.flatMap((rule) => rule.http.paths));
    for (const [prefix, script] of [
      [`${SECKILL_ENDPOINT}/`, "seckill"],
      ["/", "web"],
    ] as const) {
      const route = paths.find((p) => p.path === prefix);
      expect(route, `a rule for ${prefix}`).toBeDefined();
      expect(route!.pathType).toBe("Prefix");
      const service = serviceRunning(script);
      expect(route!.backend.service.name, prefix).toBe(service.metadata.name);
      const { name, number } = route!.backend.service.port;
      expect(
        service.spec!.ports!.some((p) => (name !== undefined ? p.name === name : p.port === number)),
        `${prefix} goes to a port of ${service.metadata.name}`,
      ).toBe(true);
    }
  });

  it("the seckill service scales on CPU, and disruptions take web and seckill pods one at a time", () => {
    const seckill = deploymentRunning("seckill");
    const [autoscaler] = named("HorizontalPodAutoscaler");
    expect(autoscaler!.spec!.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: seckill.metadata.name });
    expect(autoscaler!.spec!.metrics!.map((m) => m.resource?.name)).toEqual(["cpu"]);
    // Utilisation is counted against the request, and the autoscaler, not an apply, owns the count.
    for (const container of containersOf(seckill)) expect(container.resources?.requests?.cpu, container.name).toBeDefined();
    expect(seckill.spec!.replicas).toBeUndefined();
    const budgeted = named("PodDisruptionBudget").flatMap((budget) =>
      selectedDeployments(budget.spec!.selector!.matchLabels!).map((d) => d.metadata.name),
    );
    expect(budgeted.sort()).toEqual([deploymentRunning("seckill").metadata.name, deploymentRunning("web").metadata.name].sort());
  });
});

/**
 * The ingress-nginx annotations and controller ConfigMap keys these manifests may use: the ones
 * ingress-nginx documents (docs/user-guide/nginx-configuration/annotations.md and configmap.md),
 * so a misspelt key, which the controller would silently ignore, fails here.
 */
const DOCUMENTED_ANNOTATIONS = new Set(
  [
    "limit-connections",
    "limit-rps",
    "limit-burst-multiplier",
    "proxy-body-size",
    "proxy-request-buffering",
    "proxy-buffering",
    "proxy-http-version",
    "proxy-connect-timeout",
    "proxy-send-timeout",
    "proxy-read-timeout",
  ].map((key) => `nginx.ingress.kubernetes.io/${key}`),
);
const DOCUMENTED_CONTROLLER_KEYS = new Set([
  "client-header-timeout",
  "client-body-timeout",
  "client-body-buffer-size",
  "keep-alive",
  "limit-conn-status-code",
  "limit-req-status-code",
  "upstream-keepalive-timeout",
  "use-forwarded-headers",
  "compute-full-forwarded-for",
  "forwarded-for-header",
  "proxy-real-ip-cidr",
]);
/** tRPC's keep-alive ping on the event streams (server/trpc/init.ts, sse.ping). */
const TRPC_PING_SECONDS = 15;

describe("the front door on Kubernetes: ingress-nginx with deploy/nginx's limits", () => {
  const frontDoor = readFrontDoorSettings();
  const ingresses = named("Ingress");
  const pathsOf = (ingress: Manifest) => ingress.spec!.rules!.flatMap((rule) => rule.http.paths);
  const annotation = (ingress: Manifest, key: string) => ingress.metadata.annotations?.[`nginx.ingress.kubernetes.io/${key}`];
  const ingressFor = (path: string) => {
    const found = ingresses.filter((ingress) => pathsOf(ingress).some((p) => p.path === path));
    expect(
      found.map((i) => i.metadata.name),
      `one Ingress routes ${path}`,
    ).toHaveLength(1);
    return found[0]!;
  };
  const controller = objects.filter((o) => o.file === CONTROLLER_CONFIG).map((o) => o.manifest);

  it("uses only annotations and controller keys ingress-nginx documents", () => {
    for (const ingress of ingresses)
      expect(
        Object.keys(ingress.metadata.annotations ?? {}).filter((key) => !DOCUMENTED_ANNOTATIONS.has(key)),
        ingress.metadata.name,
      ).toEqual([]);
    expect(controller.map((c) => c.kind)).toEqual(["ConfigMap"]);
    expect(Object.keys(controller[0]!.data ?? {}).filter((key) => !DOCUMENTED_CONTROLLER_KEYS.has(key))).toEqual([]);
  });

  it("every Ingress: one host with TLS, the nginx class, connections per address limited, upstream timeouts bounded", () => {
    for (const ingress of ingresses) {
      const name = ingress.metadata.name;
      expect(ingress.spec!.ingressClassName, name).toBe("nginx");
      expect(
        ingress.spec!.tls?.flatMap((t) => t.hosts),
        name,
      ).toEqual(ingress.spec!.rules!.map((r) => r.host));
      expect(Number(annotation(ingress, "limit-connections")), name).toBeGreaterThan(0);
      expect(Number(annotation(ingress, "limit-connections")), name).toBeLessThanOrEqual(frontDoor.connectionsPerAddress);
      expect([frontDoor.maxBody, frontDoor.purchaseMaxBody], name).toContain(annotation(ingress, "proxy-body-size"));
      expect(annotation(ingress, "proxy-http-version"), name).toBe("1.1");
      expect(Number(annotation(ingress, "proxy-connect-timeout")), name).toBe(frontDoor.proxyConnectTimeoutSeconds);
    }
  });

  it("pages and calls (/): front-door.server.conf's connection and request limits, whole bodies, its timeouts", () => {
    const pages = ingressFor("/");
    expect(Number(annotation(pages, "limit-connections"))).toBe(frontDoor.connectionsPerAddress);
    expect(Number(annotation(pages, "limit-rps"))).toBe(frontDoor.requestRate);
    expect(Number(annotation(pages, "limit-rps")) * Number(annotation(pages, "limit-burst-multiplier"))).toBe(frontDoor.requestBurst);
    expect(annotation(pages, "proxy-body-size")).toBe(frontDoor.maxBody);
    expect(annotation(pages, "proxy-request-buffering")).toBe("on");
    expect(Number(annotation(pages, "proxy-send-timeout"))).toBe(frontDoor.proxySendTimeoutSeconds);
    expect(Number(annotation(pages, "proxy-read-timeout"))).toBe(frontDoor.proxyReadTimeoutSeconds);
  });

  it(`the purchase path (${SECKILL_ENDPOINT}/): the seckill service's body limit, whole bodies, no request rate`, () => {
    const purchase = ingressFor(`${SECKILL_ENDPOINT}/`);
    expect(annotation(purchase, "proxy-body-size")).toBe(frontDoor.purchaseMaxBody);
    expect(annotation(purchase, "proxy-request-buffering")).toBe("on");
    expect(annotation(purchase, "limit-rps")).toBeUndefined();
    expect(Number(annotation(purchase, "limit-connections"))).toBe(frontDoor.connectionsPerAddress);
    expect(Number(annotation(purchase, "proxy-read-timeout"))).toBe(frontDoor.proxyReadTimeoutSeconds);
  });

  it("the event streams: their exact paths to web, unbuffered, fewer per address, quiet longer than tRPC's ping", () => {
    const web = deploymentRunning("web");
    const streamPaths = ["room.onStatus", "seckill.onResult"].map((procedure) => `${TRPC_ENDPOINT}/${procedure}`);
    const streams = ingressFor(streamPaths[0]!);
    for (const path of streamPaths) {
      expect(ingressFor(path), path).toBe(streams);
      const route = pathsOf(streams).find((p) => p.path === path)!;
      expect(route.pathType, path).toBe("Exact");
      const service = named("Service").find((s) => s.metadata.name === route.backend.service.name)!;
      expect(selectedDeployments(service.spec!.selector as Labels), path).toEqual([web]);
    }
    expect(annotation(streams, "proxy-buffering")).toBe("off");
    expect(Number(annotation(streams, "limit-connections"))).toBe(frontDoor.streamsPerAddress);
    expect(Number(annotation(streams, "proxy-read-timeout"))).toBe(frontDoor.streamReadTimeoutSeconds);
    expect(frontDoor.streamReadTimeoutSeconds).toBeGreaterThan(TRPC_PING_SECONDS);
  });

  it("the controller's ConfigMap, in its own namespace: header and body timeouts, keep-alive and 429 refusals as front-door.server.conf", () => {
    const [config] = controller;
    expect(config!.metadata.namespace).toBe("ingress-nginx");
    expect(config!.data).toMatchObject({
      "client-header-timeout": String(frontDoor.clientHeaderTimeoutSeconds),
      "client-body-timeout": String(frontDoor.clientBodyTimeoutSeconds),
      "keep-alive": String(frontDoor.keepaliveTimeoutSeconds),
      "limit-conn-status-code": "429",
      "limit-req-status-code": "429",
    });
  });

  it("the controller appends to X-Forwarded-For, which the apps read one hop from the right; nginx's own limits trust no client's header", () => {
    const [config] = controller;
    // ingress-nginx sends $full_x_forwarded_for (what came in, then the address it saw) only with
    // both keys; otherwise its peer's address alone, the load balancer's for every shopper.
    expect(config!.data).toMatchObject({
      "use-forwarded-headers": "true",
      "compute-full-forwarded-for": "true",
      "forwarded-for-header": "X-Forwarded-For",
    });
    // With use-forwarded-headers the realip module takes nginx's own client address (its limits'
    // key) from the header of any peer in proxy-real-ip-cidr; its default, 0.0.0.0/0, trusts all.
    const trusted = config!.data!["proxy-real-ip-cidr"]!.split(",").map((cidr) => cidr.trim());
    expect(trusted.length).toBeGreaterThan(0);
    for (const cidr of trusted) expect(cidr.endsWith("/0"), cidr).toBe(false);
    for (const script of ["web", "seckill"]) {
      for (const container of containersOf(deploymentRunning(script)))
        expect(readEnv(environmentOf(container)).TRUSTED_PROXY_HOPS, container.name).toBe(1);
    }
  });

  it("web, seckill and worker listen on every interface of their pod (LISTEN_HOST=0.0.0.0)", () => {
    for (const script of ["web", "seckill", "worker"]) {
      for (const container of containersOf(deploymentRunning(script)))
        expect(environmentOf(container).LISTEN_HOST, container.name).toBe("0.0.0.0");
    }
  });
});

/**
 * What keeps a pod from the "restricted" Pod Security level (kubernetes.io/docs/concepts/security/
 * pod-security-standards, the baseline's controls included), as messages; none when it passes.
 */
function restrictedViolations(pod: PodSpec): string[] {
  const problems: string[] = [];
  const podContext = pod.securityContext ?? {};
  for (const field of ["hostNetwork", "hostPID", "hostIPC"] as const) if (pod[field]) problems.push(`${field} is set`);
  const RESTRICTED_VOLUMES = new Set([
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
  ]);
  for (const volume of pod.volumes ?? []) {
    for (const type of Object.keys(volume).filter((key) => key !== "name"))
      if (!RESTRICTED_VOLUMES.has(type)) problems.push(`volume ${String(volume.name)}: ${type}`);
  }
  const unconfined = (context: SecurityContext) =>
    context.seccompProfile?.type === "Unconfined" || context.appArmorProfile?.type === "Unconfined";
  const customSeLinux = (context: SecurityContext) =>
    context.seLinuxOptions?.user !== undefined || context.seLinuxOptions?.role !== undefined;
  if (unconfined(podContext)) problems.push("pod: an Unconfined profile");
  if (customSeLinux(podContext)) problems.push("pod: an SELinux user or role");
  if (podContext.windowsOptions?.hostProcess) problems.push("pod: hostProcess");
  if (podContext.runAsUser === 0) problems.push("pod: runAsUser 0");
  if (podContext.sysctls?.length) problems.push("pod: sysctls (only the safe set is allowed; none are needed)");
  const podSeccomp = ["RuntimeDefault", "Localhost"].includes(podContext.seccompProfile?.type ?? "");
  for (const container of [...pod.containers, ...(pod.initContainers ?? []), ...(pod.ephemeralContainers ?? [])]) {
    const context = container.securityContext ?? {};
    const at = `container ${container.name}`;
    if (context.privileged) problems.push(`${at}: privileged`);
    if (context.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
    if (!(context.capabilities?.drop ?? []).includes("ALL")) problems.push(`${at}: capabilities do not drop ALL`);
    for (const added of context.capabilities?.add ?? []) if (added !== "NET_BIND_SERVICE") problems.push(`${at}: adds capability ${added}`);
    if (!(context.runAsNonRoot ?? podContext.runAsNonRoot)) problems.push(`${at}: runAsNonRoot is not true`);
    if (context.runAsUser === 0) problems.push(`${at}: runAsUser 0`);
    if (!(podSeccomp || ["RuntimeDefault", "Localhost"].includes(context.seccompProfile?.type ?? "")))
      problems.push(`${at}: no RuntimeDefault or Localhost seccomp profile`);
    if (unconfined(context)) problems.push(`${at}: an Unconfined profile`);
    if (customSeLinux(context)) problems.push(`${at}: an SELinux user or role`);
    if (context.windowsOptions?.hostProcess) problems.push(`${at}: hostProcess`);
    if (context.procMount !== undefined && context.procMount !== "Default") problems.push(`${at}: procMount ${context.procMount}`);
    for (const port of container.ports ?? []) if (port.hostPort) problems.push(`${at}: hostPort ${port.hostPort}`);
  }
  return problems;
}

/** `kubectl kustomize <dir>`: the objects `kubectl apply -k <dir>` applies. */
function kustomizeBuild(dir: string): Manifest[] {
  const result = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
  if (result.error || result.status !== 0) {
    throw new Error(
      `kubectl kustomize ${dir} failed (these tests need kubectl, for its built-in kustomize): ${result.error?.message ?? result.stderr}`,
    );
  }
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as Manifest);
}

describe("the kustomize build: what kubectl apply -k deploy/kubernetes applies", () => {
  const built = kustomizeBuild(folder);
  const builtNamed = (kind: string) => built.filter((m) => m.kind === kind);
  const builtDeployments = builtNamed("Deployment");
  const podsOf = builtNamed("Deployment").concat(builtNamed("Job"));
  const kindOf = (deployment: Manifest) => deployment.spec!.template!.metadata.labels["app.kubernetes.io/component"] as ProcessKind;

  /** A copy of the folder whose kustomization sets the app image to `image`, built. */
  const scratch = mkdtempSync(path.join(tmpdir(), "flashsale-kustomize-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  let copies = 0;
  const buildWithImage = (image: Partial<Kustomization["images"][number]>) => {
    const dir = path.join(scratch, String(copies++));
    cpSync(folder, dir, { recursive: true });
    const file = path.join(dir, KUSTOMIZATION);
    const edited = parseYaml(readFileSync(file, "utf8")) as Kustomization;
    edited.images = [{ ...edited.images[0]!, ...image, name: IMAGE }];
    writeFileSync(file, stringifyYaml(edited));
    return kustomizeBuild(dir);
  };
  const migrationJob = (objects: Manifest[]) => {
    const jobs = objects.filter((m) => m.kind === "Job");
    expect(jobs).toHaveLength(1);
    return jobs[0]!;
  };

  it("holds the manifests' objects, each valid against its schema with no field it does not define, and none of the build's helpers", () => {
    expect(built.map((m) => m.kind).sort()).toEqual(
      objects
        .filter((o) => kustomization.resources.includes(o.file))
        .map((o) => o.manifest.kind)
        .sort(),
    );
    for (const manifest of built) {
      const model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
      expect(model, `a schema for ${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      expect(() => new model!(manifest as never).validate(), `${manifest.kind} ${manifest.metadata.name}`).not.toThrow();
      expect(fieldsUnknownToSchema(model!, manifest), `${manifest.kind} ${manifest.metadata.name}`).toEqual([]);
      if (manifest.kind !== "Namespace") expect(manifest.metadata.namespace, manifest.metadata.name).toBe(kustomization.namespace);
      expect(manifest.metadata.annotations?.["config.kubernetes.io/local-config"], manifest.metadata.name).toBeUndefined();
    }
  });

  it("runs every pod from the kustomization's image", () => {
    const [{ newName, newTag }] = kustomization.images as [Kustomization["images"][number]];
    for (const workload of podsOf)
      for (const container of containersOf(workload)) expect(container.image, container.name).toBe(`${newName}:${newTag}`);
  });

  it('every pod meets the "restricted" Pod Security level, which the namespace enforces', () => {
    expect(builtNamed("Namespace")[0]!.metadata.labels).toMatchObject({ "pod-security.kubernetes.io/enforce": "restricted" });
    expect(podsOf.length).toBeGreaterThanOrEqual(4);
    for (const workload of podsOf)
      expect(restrictedViolations(workload.spec!.template!.spec), `${workload.kind} ${workload.metadata.name}`).toEqual([]);
  });

  it("the restricted check finds what the level refuses", () => {
    const pod = structuredClone(builtDeployments[0]!.spec!.template!.spec);
    expect(restrictedViolations(pod)).toEqual([]);
    const container = pod.containers[0]!;
    delete pod.securityContext!.seccompProfile;
    container.securityContext = {
      ...container.securityContext,
      allowPrivilegeEscalation: true,
      capabilities: { add: ["SYS_ADMIN"] },
      runAsUser: 0,
    };
    container.ports = [{ containerPort: 3000, hostPort: 3000 }];
    pod.hostNetwork = true;
    pod.volumes = [{ name: "host", hostPath: { path: "/" } }];
    expect(restrictedViolations(pod)).toEqual([
      "hostNetwork is set",
      "volume host: hostPath",
      `container ${container.name}: allowPrivilegeEscalation is not false`,
      `container ${container.name}: capabilities do not drop ALL`,
      `container ${container.name}: adds capability SYS_ADMIN`,
      `container ${container.name}: runAsUser 0`,
      `container ${container.name}: no RuntimeDefault or Localhost seccomp profile`,
      `container ${container.name}: hostPort 3000`,
    ]);
  });

  it("each Deployment spreads its pods over zones and nodes, never blocking a scale-up", () => {
    expect(builtDeployments).toHaveLength(3);
    for (const deployment of builtDeployments) {
      const constraints = deployment.spec!.template!.spec.topologySpreadConstraints ?? [];
      expect(constraints.map((c) => c.topologyKey).sort(), deployment.metadata.name).toEqual([
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
      ]);
      for (const constraint of constraints) {
        expect(constraint.whenUnsatisfiable, deployment.metadata.name).toBe("ScheduleAnyway");
        expect(constraint.labelSelector?.matchLabels, deployment.metadata.name).toEqual(deployment.spec!.selector!.matchLabels);
      }
    }
  });

  it("each Deployment's pods are scraped where their process serves metrics, the worker's through a headless Service too", () => {
    for (const deployment of builtDeployments) {
      const kind = kindOf(deployment);
      const { annotations = {} } = deployment.spec!.template!.metadata;
      const [container] = containersOf(deployment);
      const { path: metricsPath, portVariable } = METRICS_ENDPOINTS[kind];
      const port = readEnv(environmentOf(container!))[portVariable];
      expect(annotations["prometheus.io/scrape"], kind).toBe("true");
      expect(annotations["prometheus.io/port"], kind).toBe(String(port));
      expect(annotations["prometheus.io/path"], kind).toBe(metricsPath);
      expect(containerPortFor(container!, port), `${kind} declares port ${port}`).toBeDefined();
      expect(servesMetricsAt(kind, metricsPath), `${kind} serves ${metricsPath}`).toBe(true);
    }
    const worker = builtDeployments.find((d) => kindOf(d) === "worker")!;
    const services = builtNamed("Service").filter((s) => labelsMatch(s.spec!.selector as Labels, worker.spec!.template!.metadata.labels));
    expect(services.map((s) => s.spec!.clusterIP)).toEqual(["None"]);
    expect(services[0]!.spec!.ports!.map((p) => p.targetPort)).toEqual(["metrics"]);
  });

  it("a pod waiting for the migration Job is not restarted for it: its start-up probe outlasts MIGRATE_WAIT_SECONDS", () => {
    for (const deployment of builtDeployments) {
      for (const container of containersOf(deployment)) {
        const environment = readEnv(environmentOf(container));
        expect(environment.MIGRATE_ON_START, container.name).toBe("0");
        const startup = container.startupProbe;
        expect(startup, `${container.name}: a start-up probe holds liveness back`).toBeDefined();
        const allowed = (startup!.initialDelaySeconds ?? 0) + (startup!.periodSeconds ?? 10) * (startup!.failureThreshold ?? 3);
        expect(allowed, container.name).toBeGreaterThan(environment.MIGRATE_WAIT_SECONDS);
      }
    }
  });

  it("the migration Job: named for its image, so a new release's apply makes a new Job and the same release's leaves it; gone a day after it ends", () => {
    const job = migrationJob(built);
    expect(job.metadata.name).toMatch(/^flashsale-migrate-[a-z0-9]{10}$/);
    expect(job.spec!.ttlSecondsAfterFinished).toBe(86400);
    const [current] = kustomization.images as [Kustomization["images"][number]];
    // The same release built again: the same name, so a second apply finds the Job and leaves it.
    expect(migrationJob(buildWithImage({})).metadata.name).toBe(job.metadata.name);
    // A new tag, or the same tag pinned to a digest: a Job of its own, its pod template new.
    const nextRelease = buildWithImage({ newTag: "0.2.0" });
    const pinned = buildWithImage({ digest: `sha256:${"0123456789abcdef".repeat(4)}` });
    const names = new Set([job, migrationJob(nextRelease), migrationJob(pinned)].map((j) => j.metadata.name));
    expect(names.size).toBe(3);
    expect(containersOf(migrationJob(nextRelease))[0]!.image).toBe(`${current.newName}:0.2.0`);
    expect(containersOf(migrationJob(pinned))[0]!.image).toBe(
      `${current.newName}:${current.newTag}@sha256:${"0123456789abcdef".repeat(4)}`,
    );
    // Everything else keeps its name: a Deployment is updated in place.
    const others = (objects: Manifest[]) => objects.filter((m) => m.kind !== "Job").map((m) => `${m.kind}/${m.metadata.name}`);
    expect(others(nextRelease)).toEqual(others(built));
  });
});

describe("Prometheus on Kubernetes (deploy/observability/prometheus-kubernetes.yml)", () => {
  const file = path.join(root, "deploy/observability/prometheus-kubernetes.yml");
  interface Relabel {
    source_labels?: string[];
    target_label?: string;
    regex?: string;
    action?: string;
  }
  interface Job {
    job_name: string;
    kubernetes_sd_configs?: { role: string; namespaces?: { names: string[] } }[];
    static_configs?: { targets: string[] }[];
    relabel_configs: Relabel[];
  }
  const config = parseYaml(readFileSync(file, "utf8")) as { rule_files: string[]; scrape_configs: Job[] };
  /** Prometheus's name for a pod annotation: every character not a letter, digit or _ becomes _. */
  const annotationLabel = (annotation: string) => `__meta_kubernetes_pod_annotation_${annotation.replace(/[^a-zA-Z0-9_]/g, "_")}`;

  it("discovers the namespace's pods and keeps the annotated, running ones, one target each on the annotated port and path", () => {
    expect(config.scrape_configs).toHaveLength(1);
    const [job] = config.scrape_configs as [Job];
    expect(job.kubernetes_sd_configs).toEqual([{ role: "pod", namespaces: { names: [kustomization.namespace] } }]);
    const rule = (target: Partial<Relabel>) =>
      job.relabel_configs.filter((r) =>
        Object.entries(target).every(([key, value]) => JSON.stringify(r[key as keyof Relabel]) === JSON.stringify(value)),
      );
    expect(rule({ source_labels: [annotationLabel("prometheus.io/scrape")], action: "keep", regex: "true" })).toHaveLength(1);
    expect(rule({ source_labels: ["__meta_kubernetes_pod_phase"], action: "keep", regex: "Running" })).toHaveLength(1);
    expect(
      rule({
        source_labels: ["__meta_kubernetes_pod_container_port_number"],
        action: "keepequal",
        target_label: annotationLabel("prometheus.io/port"),
      }),
    ).toHaveLength(1);
    expect(rule({ source_labels: [annotationLabel("prometheus.io/path")], target_label: "__metrics_path__" })).toHaveLength(1);
    // job="web", "seckill", "worker", as in compose's prometheus.yml, which the alerts and the dashboard share.
    expect(rule({ source_labels: ["__meta_kubernetes_pod_label_app_kubernetes_io_component"], target_label: "job" })).toHaveLength(1);
    const components = deployments.map((d) => d.spec!.template!.metadata.labels["app.kubernetes.io/component"]);
    expect(components.sort()).toEqual(["seckill", "web", "worker"]);
  });

  it("is a configuration promtool accepts (its Kubernetes discovery, which Debian's promtool lacks, swapped for a static target)", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "flashsale-prometheus-"));
    try {
      const checked = structuredClone(config);
      for (const job of checked.scrape_configs) {
        delete job.kubernetes_sd_configs;
        job.static_configs = [{ targets: ["pod.invalid:3000"] }];
      }
      writeFileSync(path.join(scratch, "prometheus.yml"), stringifyYaml(checked));
      for (const rules of config.rule_files) cpSync(path.join(root, "deploy/observability", rules), path.join(scratch, rules));
      const result = spawnSync("promtool", ["check", "config", path.join(scratch, "prometheus.yml")], { encoding: "utf8" });
      expect(result.error, "promtool (Debian's prometheus package) is installed").toBeUndefined();
      expect(result.status, result.stdout + result.stderr).toBe(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
