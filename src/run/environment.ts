/**
 * A commission's case environment, made once per run before its first case (issue 19): the image map applied
 * (the commission's `images`, then `--image-map`), `sandbox.build` built on the engine (or skipped when the image
 * it starts from is mapped), commission services built, and per case its services resolved for the sandbox. A
 * missing base image or a failed build refuses every case of the commission as an infra-error naming it, before
 * any sandbox starts; every substitution is recorded for the report.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type BuildConfig,
  type CaseRef,
  type Commission,
  caseServices,
  type Service,
  serviceFileSource,
} from '../commission/index.js';
import {
  dockerfileBases,
  type ImageMap,
  type ImageSubstitution,
  mappedImage,
  mergeImageMaps,
  type SandboxBackend,
  type ServiceSpec,
} from '../sandbox/index.js';

/** What a case of the commission runs in. */
export interface PreparedEnvironment {
  /** The case container's image (mapped or built); undefined: the backend's default. */
  image: string | undefined;
  /** Set when no case of this commission can run (a base image missing, a build failed): the infra-error reason. */
  refusal: string | null;
  /** Substitutions every case of the commission has (the sandbox's image or build). */
  substituted: ImageSubstitution[];
  /** The services of one case for the sandbox, with the substitutions they add; rejects when a build fails. */
  servicesFor(caseRef: CaseRef): Promise<{ services: ServiceSpec[]; substituted: ImageSubstitution[] }>;
  /**
   * The image that runs where grading names `image` (a command check's), by the same map, so a run told the map runs
   * it wherever an image is named; `substituted`: `seen` with this substitution added when it is new.
   */
  imageFor(
    image: string | undefined,
    what: string,
    seen: ImageSubstitution[],
  ): { image: string | undefined; substituted: ImageSubstitution[] };
}

/** The image a build starts from when the image map names it: the build is then skipped. */
function mappedBuild(build: BuildConfig, baseDir: string, map: ImageMap): { from: string; to: string } | null {
  const text = readFileSync(path.resolve(baseDir, build.context, build.dockerfile), 'utf8');
  const { final } = dockerfileBases(text, build.args);
  const to = final === null ? null : mappedImage(final, map);
  return final !== null && to !== null ? { from: final, to } : null;
}

/**
 * Resolves and builds the environment of `commission` on `backend`. Build logs go to `logDir/<name>.log`. Never
 * rejects for the environment's own faults: they become `refusal`.
 */
export async function prepareEnvironment(args: {
  commission: Commission;
  backend: SandboxBackend;
  imageMap?: ImageMap;
  logDir: string;
}): Promise<PreparedEnvironment> {
  const { commission, backend, logDir } = args;
  const cfg = commission.config;
  const map = mergeImageMaps(cfg.images, args.imageMap);
  const substituted: ImageSubstitution[] = [];
  const builds = new Map<string, Promise<string>>();

  /** The image a build gives: mapped (skipped), or built on the engine once per context and name. */
  const imageOfBuild = (name: string, build: BuildConfig, baseDir: string, what: string, into: ImageSubstitution[]) => {
    const m = mappedBuild(build, baseDir, map);
    if (m) {
      into.push({ from: m.from, to: m.to, for: `${what} build skipped` });
      return Promise.resolve(m.to);
    }
    if (!backend.build) return Promise.resolve(undefined);
    const context = path.resolve(baseDir, build.context);
    const key = `${name}\0${context}\0${build.dockerfile}`;
    let p = builds.get(key);
    if (!p) {
      p = backend
        .build({
          name,
          context,
          dockerfile: build.dockerfile,
          args: build.args,
          logFile: path.join(logDir, `${name}.log`),
        })
        .then((b) => b.image);
      builds.set(key, p);
    }
    return p;
  };
  const imageOf = (image: string, what: string, into: ImageSubstitution[]) => {
    const to = mappedImage(image, map);
    if (to === null) return image;
    into.push({ from: image, to, for: what });
    return to;
  };

  let image: string | undefined;
  let refusal: string | null = null;
  try {
    if (cfg.sandbox.build)
      image = await imageOfBuild(cfg.id, cfg.sandbox.build, commission.dir, 'sandbox', substituted);
    else if (cfg.sandbox.image) image = imageOf(cfg.sandbox.image, 'sandbox', substituted);
    // Commission services are built now too, so a missing base image refuses the commission before any case runs.
    for (const s of cfg.services) {
      if (s.build) await imageOfBuild(`${cfg.id}-${s.name}`, s.build, commission.dir, `service ${s.name}`, []);
    }
  } catch (err) {
    refusal = `environment: ${(err as Error).message}`;
  }

  const resolve = async (s: Service, caseRef: CaseRef, into: ImageSubstitution[]): Promise<ServiceSpec> => {
    const own = (caseRef.services ?? []).includes(s);
    const name = own ? `${cfg.id}-${caseRef.id}-${s.name}` : `${cfg.id}-${s.name}`;
    const what = `service ${s.name}`;
    const built = s.build ? await imageOfBuild(name, s.build, own ? caseRef.dir : commission.dir, what, into) : null;
    return {
      name: s.name,
      // a backend that runs no images (process) ignores it
      image: built ?? (s.image ? imageOf(s.image, what, into) : ''),
      command: s.command,
      env: s.env,
      files: Object.entries(s.files).map(([source, containerPath]) => ({
        hostPath: serviceFileSource(source, caseRef.dir, commission.dir),
        containerPath,
      })),
      ready: s.ready,
      timeoutSeconds: s.timeout,
      limits: { memoryMb: s.memoryMb, cpus: s.cpus, pids: s.pids },
      user: s.user,
    };
  };

  return {
    image,
    refusal,
    substituted,
    imageFor(wanted, what, seen) {
      if (wanted === undefined) return { image: undefined, substituted: seen };
      const into: ImageSubstitution[] = [];
      const image = imageOf(wanted, what, into);
      const fresh = into.filter((x) => !seen.some((y) => y.from === x.from && y.to === x.to && y.for === x.for));
      return { image, substituted: fresh.length ? [...seen, ...fresh] : seen };
    },
    async servicesFor(caseRef) {
      const into: ImageSubstitution[] = [];
      const services: ServiceSpec[] = [];
      for (const s of caseServices(cfg.services, caseRef.services)) services.push(await resolve(s, caseRef, into));
      // one line per substitution, however many cases share it
      const seen = new Set<string>();
      const unique = into.filter((x) => {
        const k = `${x.from}\0${x.to}\0${x.for}`;
        return !seen.has(k) && seen.add(k) !== undefined;
      });
      return { services, substituted: unique };
    },
  };
}
