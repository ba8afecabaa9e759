import { z } from 'zod';
import { isInsidePath } from './package-files.js';

/**
 * A case's environment beyond the one sandbox (issue 19): the services a case needs beside the delivery, an
 * environment built from a Dockerfile, and the image map for machines without a registry. Shaped so importers can
 * declare what AgentSWE packages (a fixture HTTP service per case) and Harbor tasks (compose services with
 * healthchecks, `environment/Dockerfile` builds) need.
 */

const port = z.number().int().min(1).max(65535);

/** `{ context, dockerfile, args }`: a Dockerfile build on the engine; `context` relative to the declaring file's directory. */
export const buildSchema = z
  .object({
    context: z
      .string()
      .min(1)
      .refine(isInsidePath, 'must be a relative path inside its directory (no "..", not absolute)'),
    /** Relative to the context (compose's `build.dockerfile`). */
    dockerfile: z.string().min(1).refine(isInsidePath, 'must be inside the context').default('Dockerfile'),
    /** Build arguments (`--build-arg`). */
    args: z.record(z.string(), z.string()).default({}),
  })
  .strict();

/** How a service says it is ready: an HTTP path on a port, a TCP port, or a command run inside it (exit 0). */
export const readySchema = z.union([
  z
    .object({
      http: z.string().regex(/^\//, 'must be a path starting with /'),
      port,
    })
    .strict(),
  z.object({ tcp: port }).strict(),
  z
    .object({
      /** A string runs under /bin/sh -c; an array is exec'd as is (compose's `healthcheck.test` CMD form). */
      command: z.union([z.string().min(1), z.array(z.string()).min(1)]),
    })
    .strict(),
]);

const serviceName = z
  .string()
  .regex(
    /^[a-z0-9]([a-z0-9_.-]{0,61}[a-z0-9])?$/,
    'must be a host name: lower-case letters, digits, "-", "_" or ".", at most 63, starting and ending with a letter or digit',
  )
  .refine((n) => n !== 'localhost' && n !== 'heldout', 'is reserved (localhost, heldout); use another name');

/**
 * A service of a case's pod. `files` maps sources to absolute paths inside the service, mounted read-only there
 * only: a source is relative to the case's directory (its own fixture data), or starts with `{commission}/` for a
 * file of the commission package (service code shared by every case).
 */
export const serviceSchema = z
  .object({
    name: serviceName,
    /** A local image (heldout pulls nothing); or `build`. */
    image: z.string().min(1).optional(),
    build: buildSchema.optional(),
    /** A string runs under /bin/sh -c; an array replaces the image's CMD (its ENTRYPOINT kept); none: the image's own. */
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
    env: z.record(z.string(), z.string()).default({}),
    files: z
      .record(z.string().min(1), z.string().regex(/^\//, 'must be an absolute path inside the service'))
      .default({}),
    /** None: ready once it runs. */
    ready: readySchema.optional(),
    /** Seconds the service has to become ready; a service not ready by then makes the case an infra-error. */
    timeout: z.number().positive().default(60),
    memoryMb: z.number().int().positive().default(1024),
    cpus: z.number().positive().default(1),
    pids: z.number().int().positive().default(256),
    /** `uid[:gid]` to run as; default the image's user. */
    user: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (!s.image === !s.build) {
      ctx.addIssue({ code: 'custom', path: ['image'], message: 'give exactly one of image and build' });
    }
    for (const source of Object.keys(s.files)) {
      const rel = source.startsWith('{commission}/') ? source.slice('{commission}/'.length) : source;
      if (rel === '' || !isInsidePath(rel)) {
        ctx.addIssue({
          code: 'custom',
          path: ['files', source],
          message: 'must be a path inside the case directory (or {commission}/…), without ..',
        });
      }
    }
  });

/** The services of a commission or case: names unique. */
export const servicesSchema = z.array(serviceSchema).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((s, i) => {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate service ${s.name}` });
    seen.add(s.name);
  });
});

/** From image → the local image that runs instead (and whose use skips a build on it); reported as substituted. */
export const imagesSchema = z.record(z.string().min(1), z.string().min(1));

/** `case.yaml` beside a case's input.md: what that case needs beyond the commission's (evaluator-owned, never staged). */
export const caseConfigSchema = z
  .object({
    /** Added to the commission's services; one with the same name replaces the commission's. */
    services: servicesSchema.default([]),
  })
  .strict();

export type Service = z.output<typeof serviceSchema>;
export type ServiceInput = z.input<typeof serviceSchema>;
export type BuildConfig = z.output<typeof buildSchema>;
export type CaseConfig = z.output<typeof caseConfigSchema>;
