import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The JUnit shape CI viewers accept, as Jenkins' junit-10.xsd holds it (fixtures/junit/README says what it checks). */
export const JUNIT_XSD = path.resolve(import.meta.dirname, '../../fixtures/junit/junit-common.xsd');

async function xmllint(args: string[], xml: string): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-junit-'));
  const file = path.join(dir, 'junit.xml');
  writeFileSync(file, xml);
  try {
    const r = await run('xmllint', [...args, file], { maxBuffer: 16 << 20 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string };
    // A missing xmllint must fail the test, never pass it: .ci/run installs libxml2-utils.
    if (e.code === 'ENOENT') throw new Error('xmllint is not installed (apt-get install libxml2-utils)');
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Validates a JUnit document against junit-common.xsd with libxml2's xmllint: exit code and its messages. */
export function validateJunit(xml: string): Promise<{ code: number; out: string }> {
  return xmllint(['--noout', '--schema', JUNIT_XSD], xml);
}

/** What a CI test viewer counts, read by libxml2 (XPath) rather than by regular expressions over the text. */
export async function junitCounts(xml: string): Promise<{ tests: number; failures: number; failed: string[] }> {
  const xpath = async (expr: string) => (await xmllint(['--xpath', expr], xml)).out.trim();
  const tests = Number(await xpath('count(//testcase)'));
  const failures = Number(await xpath('count(//testcase[failure or error])'));
  const names = failures > 0 ? await xpath('//testcase[failure or error]/@name') : '';
  const failed = [...names.matchAll(/name="([^"]*)"/g)].map((m) => m[1]);
  return { tests, failures, failed };
}
