import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { durationSeconds, readCompose } from '../../src/importers/harbor-compose.js';
import { readDockerfile, substitute } from '../../src/importers/harbor-dockerfile.js';
import { accountFiles } from '../../src/importers/harbor-files.js';
import { dimensionId, equalMaxima, rewardKeys } from '../../src/importers/harbor-rewards.js';
import { readTaskToml, sizeMb } from '../../src/importers/harbor-task.js';
import { parseToml } from '../../src/importers/toml.js';
import { stripCanary } from '../../src/util/index.js';

describe("a Dockerfile's final stage, by Docker's rules", () => {
  test('WORKDIR resets at FROM and resolves relative values; ENV and ARG substitute; unknown references stay', () => {
    const f = readDockerfile(`# syntax=docker/dockerfile:1
FROM golang:1.22 AS build
WORKDIR /src
RUN go build
FROM ubuntu:24.04
ARG BASE=/opt
ENV A=1 B="two words" \\
    P="/x:\${PATH}"
WORKDIR app
WORKDIR sub
ENV DIR=\${BASE}/data
COPY --from=build /src/bin /usr/local/bin/
COPY a.txt b.txt ./
COPY conf \${DIR}
USER agent
ENTRYPOINT ["/entrypoint.sh"]
CMD ["bash"]
`);
    expect(f.stages).toEqual(['golang:1.22', 'ubuntu:24.04']);
    expect(f.base).toBe('ubuntu:24.04');
    expect(f.workdir).toBe('/app/sub');
    expect(f.env).toEqual({ A: '1', B: 'two words', P: `/x:\${PATH}`, DIR: '/opt/data' });
    expect(f.copies).toEqual([
      { from: ['a.txt', 'b.txt'], to: '/app/sub/' },
      { from: ['conf'], to: '/opt/data' },
    ]);
    expect(f.skipped).toEqual(['COPY --from=build /src/bin /usr/local/bin/']);
    expect(f.ignored).toEqual(['CMD ["bash"]']);
    expect(f.user).toBe('agent');
    expect(f.entrypoint).toEqual(['/entrypoint.sh']);
  });

  test('a shell-form ENTRYPOINT runs under /bin/sh -c; ENTRYPOINT [] clears it; legacy `ENV K V`', () => {
    expect(readDockerfile('FROM x\nENTRYPOINT exec run --it\n').entrypoint).toEqual(['/bin/sh', '-c', 'exec run --it']);
    expect(readDockerfile('FROM x\nENTRYPOINT []\n').entrypoint).toEqual([]);
    expect(readDockerfile('FROM x\nENV GREETING hello world\n').env).toEqual({ GREETING: 'hello world' });
  });

  test('substitution: known names replaced, defaults used, an escaped $ kept literal', () => {
    expect(substitute(`\${A}-$A-\${B:-d}-\${A:+set}-\\$A`, { A: 'x' })).toBe(`x-x-\${B:-d}-set-$A`);
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('$') && !s.includes('\\')),
        (s) => substitute(s, {}) === s,
      ),
    );
  });
});

describe('compose sidecars', () => {
  test('main is the trial container; every other service with its build, port, healthcheck and environment', () => {
    const r = readCompose(`services:
  main:
    depends_on: { api: { condition: service_healthy } }
    environment: [X=1]
  api:
    build: { context: ./api-server }
    expose: ["5000"]
    environment:
      - KEY=\${KEY}
      - PASS
    healthcheck:
      test: ["CMD", "python3", "-c", "pass"]
      interval: 2s
      timeout: 1m30s
      retries: 15
      start_period: 500ms
`);
    expect(r.mainOverrides).toEqual(['environment']);
    expect(r.services).toEqual([
      {
        name: 'api',
        build: { context: 'api-server', dockerfile: 'Dockerfile' },
        image: null,
        command: null,
        entrypoint: null,
        env: { KEY: `\${KEY}`, PASS: `\${PASS}` },
        expose: [5000],
        healthcheck: {
          test: ['CMD', 'python3', '-c', 'pass'],
          intervalSeconds: 2,
          timeoutSeconds: 90,
          retries: 15,
          startPeriodSeconds: 0.5,
        },
      },
    ]);
    expect(durationSeconds('1h2m3s')).toBe(3723);
    expect(durationSeconds('soon')).toBeNull();
  });
});

describe('the reward keys a verifier writes', () => {
  test('a dict written to reward.json gives its keys; reward.txt alone gives `reward`', () => {
    const multi = rewardKeys([
      {
        path: 'tests/test.sh',
        text: `python3 -c "\nimport json\njson.dump({'correctness': $c, 'performance': $p}, open('/logs/verifier/reward.json', 'w'))\n"`,
      },
    ]);
    expect(multi).toEqual({
      keys: ['correctness', 'performance'],
      recorded: [],
      evidence: ['tests/test.sh:3'],
      unreadJson: false,
      writesTxt: false,
    });
    expect(rewardKeys([{ path: 'tests/test.sh', text: 'echo 1 > /logs/verifier/reward.txt' }]).keys).toEqual([
      'reward',
    ]);
    expect(rewardKeys([{ path: 'tests/t.py', text: 'write(REWARD_PATH + "/reward.json", data)' }])).toMatchObject({
      keys: ['reward'],
      unreadJson: true,
    });
  });

  test('dimension maxima sum to exactly 100 and ids are distinct slugs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), (n) => {
        const m = equalMaxima(n);
        return m.length === n && Math.abs(m.reduce((a, b) => a + b, 0) - 100) < 1e-9;
      }),
    );
    const taken = new Set<string>();
    expect(['Score', 'score', '__x'].map((k) => dimensionId(k, taken))).toEqual(['score', 'score-2', 'x']);
  });
});

describe("Harbor's canary stripping", () => {
  test('leading canary comment lines and the blank lines after them go; nothing else', () => {
    expect(stripCanary('<!-- BENCHMARK DATA canary GUID 1 -->\n# t-bench-canary x\n\n\n# Title\nbody\n')).toBe(
      '# Title\nbody\n',
    );
    expect(stripCanary('# Title\n<!-- canary -->\n')).toBe('# Title\n<!-- canary -->\n');
    fc.assert(
      fc.property(fc.string(), (s) => {
        const first = s.split('\n')[0]!.trim();
        fc.pre(first !== '' && !/canary/i.test(first));
        return stripCanary(s) === s;
      }),
    );
  });
});

describe('task.toml by Harbor’s schema', () => {
  test('budgets, timeouts, network and the legacy memory size', () => {
    const r = readTaskToml(
      parseToml(
        `[agent]\ntimeout_sec = 30\n[verifier]\ntimeout_sec = 9\n[environment]\nmemory = "2G"\ncpus = 2\nallow_internet = false\n[agent.kwargs]\nmax_turns = 3\n`,
      ),
      { multiStep: false },
    );
    expect(r.budgets).toEqual({ wallSeconds: 30, pids: 4096, memoryMb: 2048, cpus: 2 });
    expect(r.harbor).toMatchObject({
      network: 'no-network',
      verifier: { timeoutSeconds: 9 },
      agent: { timeoutSeconds: 30 },
    });
    expect(r.notes.some((n) => n.includes('[agent.kwargs]'))).toBe(true);
    expect(sizeMb('512M')).toBe(512);
  });
});

describe('every file accounted for', () => {
  test('environment files by the COPY that takes them, or as a sidecar build context', () => {
    const m = accountFiles({
      files: ['environment/skills/a/SKILL.md', 'environment/api/server.py', 'environment/notes.txt', 'HANDOFF.md'],
      copies: [{ from: ['skills/'], to: '/skills/' }],
      serviceContexts: { api: 'api' },
      hasCompose: true,
      steps: [],
    });
    expect(m.get('environment/skills/a/SKILL.md')).toMatch(/^in the image at \/skills\/a\/SKILL\.md/);
    expect(m.get('environment/api/server.py')).toMatch(/^build context of compose service `api`/);
    expect(m.get('environment/notes.txt')).toMatch(/^in the build context only/);
    expect(m.get('HANDOFF.md')).toMatch(/^not used: the task author's notes/);
  });
});
