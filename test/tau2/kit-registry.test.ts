import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_AGENT_SEMANTICS } from '../../src/commission/index.js';
import { ruleValidator } from '../../src/taste/index.js';
import { mutatesState } from '../../src/tau2/environment/toolkit.js';
import {
  createEnvironment,
  domainKit,
  domainKits,
  executableDomains,
  loadDomain,
  SEMANTICS,
} from '../../src/tau2/index.js';
import { tau2Dir } from './data.js';

describe('the registry of τ² domain kits', () => {
  it('knows and executes airline, retail and telecom, and names them for an unknown domain', () => {
    expect(Object.keys(domainKits)).toEqual(['airline', 'retail', 'telecom']);
    expect(executableDomains).toEqual(['airline', 'retail', 'telecom']);
    expect(() => domainKit('banking')).toThrow('unknown τ² domain "banking" (known: airline, retail, telecom)');
    const banking = { ...loadDomain(path.join(tau2Dir, 'airline')), name: 'banking' };
    expect(() => createEnvironment(banking)).toThrow(
      'no tool implementation for domain "banking" (have: airline, retail, telecom)',
    );
  });

  it('names the semantics the commission schema offers, and no other (the two parts keep one list each)', () => {
    expect([...SEMANTICS]).toEqual([...TOOL_AGENT_SEMANTICS]);
  });

  for (const name of Object.keys(domainKits)) {
    it(`${name}: the kit's toolkits hold exactly the tools of tools.json, with τ²'s requestor, type and mutates_state`, () => {
      const d = loadDomain(path.join(tau2Dir, name));
      const kit = domainKit(name);
      expect(kit.name).toBe(name);
      const sides = { assistant: kit.tools?.agent.toolkit.tools ?? {}, user: kit.tools?.user?.toolkit.tools ?? {} };
      for (const requestor of ['assistant', 'user'] as const) {
        const listed = d.tools.filter((t) => t.requestor === requestor);
        expect(Object.keys(sides[requestor]).sort(), requestor).toEqual(listed.map((t) => t.name).sort());
        for (const t of listed) {
          const def = sides[requestor][t.name];
          expect(def.type.toUpperCase(), t.name).toBe(t.type);
          expect(mutatesState(def), t.name).toBe(t.mutates_state);
          // The parameters τ²'s signature takes are the ones tools.json offers the model.
          expect(def.params.map((p) => p.name).sort(), t.name).toEqual(
            Object.keys(t.parameters.properties ?? {}).sort(),
          );
          const required = def.params.filter((p) => !p.optional).map((p) => p.name);
          expect(required.sort(), t.name).toEqual([...(t.parameters.required ?? [])].sort());
        }
      }
      expect(() => ruleValidator(d)).not.toThrow();
    });
  }
});
